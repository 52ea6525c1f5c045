// Chat: pick an agent (main by default), pick, search or start a conversation, and talk to it.
// History comes from the server (the conversation's active branch), so a reload shows the same
// conversation; editing a sent message or regenerating an answer starts a new branch and the
// earlier versions stay switchable. "New conversation" keeps the old one.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useEscape } from '../../ui/use-escape.ts';
import { api, apiAll, ApiError, streamEvents } from '../../api.ts';
import { t, useLang } from '../../i18n/index.ts';
import { href, navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import type { AgentView, SessionView } from '../../types.ts';
import { agentName } from '../../types.ts';
import { toast } from '../../ui/toast.tsx';
import {
  deleteSession,
  downloadExport,
  keyHref,
  markSession,
  renameSession,
  sessionPath,
  showVersion,
} from './chat-actions.ts';
import { ChatHeader } from './chat-header.tsx';
import type { AssistantItem, ChatItem, StoredMessage, Usage, UserItem } from './chat-model.ts';
import { applyChunk, fromHistory, itemId } from './chat-model.ts';
import { Composer } from './composer.tsx';
import type { Draft } from './drafts.ts';
import { loadDraft, saveDraft } from './drafts.ts';
import { ChatSidebar } from './chat-sidebar.tsx';
import { sessionHref } from './session-list.tsx';
import type { SearchHit } from './session-search.tsx';
import { Transcript } from './transcript.tsx';
import type { ModelsSummary } from '@server/resources/models/models.schema.ts';
import type { CompactAnswer } from '@server/resources/sessions/sessions.schema.ts';

const DEFAULT_AGENT = 'main';

function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `ui-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** The agent opened when the URL names none: main, else the first that loads. */
function defaultAgent(agents: AgentView[]): string | undefined {
  if (agents.some((agent) => agent.ruleChain.id === DEFAULT_AGENT)) return DEFAULT_AGENT;
  return (agents.find((agent) => agent.status.loaded) ?? agents[0])?.ruleChain.id;
}

/** Where a turn starts when it does not follow the conversation: an edit's parent, a regenerate. */
interface Branching {
  parentMessageId?: number;
  regenerate?: number;
  /** The transcript's items from this index on are replaced by the new turn. */
  replaceFrom?: number;
}

export function ChatPage({ params }: PageProps) {
  useLang();
  const [agentParam, sessionParam] = params;
  const [agents, setAgents] = useState<AgentView[] | null>(null);
  const [sessions, setSessions] = useState<SessionView[] | null>(null);
  const [showArchived, setShowArchived] = useState(false);
  const [items, setItems] = useState<ChatItem[]>([]);
  const [historyState, setHistoryState] = useState<'loading' | 'ready' | 'error'>('loading');
  const [draft, setDraftState] = useState<Draft>({ text: '', images: [] });
  const [busy, setBusy] = useState(false);
  const [demo, setDemo] = useState(false);
  const [listOpen, setListOpen] = useState(false);
  const closeList = useCallback(() => setListOpen(false), []);
  useEscape(listOpen, closeList);
  const [historyVersion, setHistoryVersion] = useState(0);
  const [compacting, setCompacting] = useState(false);
  const [focusId, setFocusId] = useState<number | undefined>(undefined);
  const controller = useRef<AbortController | null>(null);

  const agentId = agentParam ?? '';
  const sessionId = sessionParam ?? '';

  useEffect(() => {
    apiAll<AgentView>('/agents').then(setAgents, () => setAgents([]));
    api<ModelsSummary>('/config/models', { quiet: true }).then(
      (models) => setDemo(models.demo === true),
      () => undefined,
    );
  }, []);

  // /ui/chat opens the default agent.
  useEffect(() => {
    if (agentParam || !agents) return;
    const chosen = defaultAgent(agents);
    if (chosen) navigate(href('chat', chosen), { replace: true });
  }, [agentParam, agents]);

  const reloadSessions = useCallback(async () => {
    if (!agentId) return;
    try {
      setSessions(
        await apiAll<SessionView>(`/agents/${encodeURIComponent(agentId)}/sessions`, {
          query: { archived: showArchived ? 'all' : 'false' },
        }),
      );
    } catch {
      setSessions([]);
    }
  }, [agentId, showArchived]);

  // Another agent's list is not this one's; the archived filter only reloads it. Emptied then, the
  // list looked loaded anew and the conversation's history was read again, racing a move of the
  // conversation to another agent (a 404 for the old agent's messages).
  useEffect(() => setSessions(null), [agentId]);
  useEffect(() => {
    void reloadSessions();
  }, [reloadSessions]);

  // /ui/chat/<agent> opens its latest conversation, or a new one.
  useEffect(() => {
    if (!agentId || sessionParam || !sessions) return;
    const latest = sessions.find(
      (session) => session.channel === 'api' && session.scope === 'per_peer' && !session.archived,
    );
    navigate(href('chat', agentId, latest ? latest.sessionId : newSessionId()), { replace: true });
  }, [agentId, sessionParam, sessions]);

  const loadHistory = useCallback(
    () => apiAll<StoredMessage>(`${sessionPath(agentId, sessionId)}/messages`, { quiet: true }),
    [agentId, sessionId],
  );

  // History of the open conversation, from the server, once the session list says it is there (a
  // conversation not sent yet has none to ask for).
  const sessionsLoaded = sessions !== null;
  useEffect(() => {
    if (!agentId || !sessionId) return;
    controller.current?.abort();
    setItems([]);
    setDraftState(loadDraft(agentId, sessionId));
    setHistoryState('loading');
    if (!sessions) return;
    if (!sessions.some((session) => session.sessionId === sessionId || session.key === sessionId)) {
      setHistoryState('ready');
      return;
    }
    let live = true;
    loadHistory().then(
      (messages) => {
        if (!live) return;
        setItems(fromHistory(messages));
        setHistoryState('ready');
      },
      (error: unknown) => {
        if (!live) return;
        if (error instanceof ApiError && error.status === 404) {
          setHistoryState('ready');
          return;
        }
        setHistoryState('error');
        if (error instanceof ApiError && error.status !== 401)
          toast(t('chat.historyNotLoaded', { error: error.message }), 'error');
      },
    );
    return () => {
      live = false;
    };
    // The list's later reloads (after each answer) must not reload the history being shown.
  }, [agentId, sessionId, sessionsLoaded, historyVersion]);

  /** Reads the active branch again (after a turn, a version switch) without clearing the view. */
  const refreshHistory = async (usage?: Usage) => {
    try {
      const next = fromHistory(await loadHistory());
      const last = [...next].reverse().find((item): item is AssistantItem => item.kind === 'assistant');
      if (usage && last) last.usage = usage;
      setItems(next);
    } catch {
      // The streamed view stays; a reload reads the history again.
    }
  };

  useEffect(() => () => controller.current?.abort(), []);

  const setDraft = (next: Draft) => {
    setDraftState(next);
    saveDraft(agentId, sessionId, next);
  };

  const current = sessions?.find((session) => session.sessionId === sessionId || session.key === sessionId);

  /** "Compact now": the memory flush, then a summary of all but the newest turns; nothing is deleted. */
  const compactNow = async () => {
    if (!current) return;
    setCompacting(true);
    try {
      const result = await api<CompactAnswer>(
        `${sessionPath(agentId, current.key)}/compact`,
        { method: 'POST' },
      );
      toast(
        result.compacted
          ? t('chat.compacted', { count: result.folded })
          : t('chat.notCompacted', { reason: result.reason ?? t('chat.nothingToFold') }),
        result.compacted ? 'success' : 'info',
      );
      setHistoryVersion((version) => version + 1);
    } catch {
      // toasted
    } finally {
      setCompacting(false);
    }
  };
  const agent = agents?.find((entry) => entry.ruleChain.id === agentId);
  const readOnly =
    current && (current.channel !== 'api' || current.scope !== 'per_peer')
      ? t('chat.readOnly.channel', { channel: current.channel })
      : sessionId.startsWith('agent:')
        ? t('chat.readOnly')
        : agent && !agent.status.loaded
          ? t('chat.agentBroken')
          : agents && !agent
            ? t('chat.noAgent', { agent: agentId })
            : null;

  const send = async (message: Draft, branching: Branching = {}) => {
    const regenerating = branching.regenerate !== undefined;
    const user: UserItem = { kind: 'user', id: itemId(), text: message.text, images: message.images };
    let turn: AssistantItem = { kind: 'assistant', id: itemId(), text: '', tools: [], status: 'streaming' };
    const before = branching.replaceFrom === undefined ? items : items.slice(0, branching.replaceFrom);
    setItems(regenerating ? [...before, turn] : [...before, user, turn]);
    if (!regenerating) setDraftState({ text: '', images: [] });
    setBusy(true);
    setFocusId(undefined);
    const abort = new AbortController();
    controller.current = abort;
    const content =
      message.images.length === 0
        ? message.text
        : [
            { type: 'text', text: message.text },
            ...message.images.map((url) => ({ type: 'image_url', image_url: { url } })),
          ];
    const update = (next: AssistantItem) => {
      turn = next;
      setItems((list) => list.map((item) => (item.id === next.id ? next : item)));
    };
    let started = false;
    try {
      const events = streamEvents(
        '/chat/completions',
        {
          model: agentId,
          stream: true,
          sessionId,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content }],
          ...(branching.parentMessageId !== undefined ? { parentMessageId: branching.parentMessageId } : {}),
          ...(regenerating ? { regenerate: branching.regenerate } : {}),
        },
        { headers: { 'x-stream-protocol': 'agui' }, signal: abort.signal, quiet: true },
      );
      for await (const payload of events) {
        if (!started) {
          started = true;
          // The server has the message now: the draft can go.
          if (!regenerating) saveDraft(agentId, sessionId, { text: '', images: [] });
        }
        update(applyChunk(turn, payload));
      }
      update({ ...turn, status: turn.status === 'failed' ? 'failed' : 'done' });
      // The stored messages' ids and versions, for edit, regenerate and the versions switch.
      await refreshHistory(turn.usage);
    } catch (error) {
      if (abort.signal.aborted) {
        update({ ...turn, status: 'stopped' });
      } else if (error instanceof ApiError && error.status === 0 && !started) {
        // The server is down: nothing was sent. Put the message back where it was typed.
        setItems((list) => list.filter((item) => item.id !== user.id && item.id !== turn.id));
        if (!regenerating) setDraft(message);
        toast(t('chat.serverDown'), 'error');
      } else {
        const text = error instanceof Error ? error.message : t('chat.answerFailed');
        update({ ...turn, status: 'failed', error: text });
      }
    } finally {
      controller.current = null;
      setBusy(false);
      void reloadSessions();
    }
  };

  /** A new version of the last answer; the earlier ones stay, switchable. */
  const regenerate = () => {
    if (readOnly || busy) return;
    let index = -1;
    items.forEach((item, at) => {
      if (item.kind === 'user') index = at;
    });
    const last = items[index];
    if (!last || last.kind !== 'user') return;
    if (last.messageId === undefined)
      void send({ text: last.text, images: last.images }, { replaceFrom: index });
    else
      void send(
        { text: last.text, images: last.images },
        { regenerate: last.messageId, replaceFrom: index + 1 },
      );
  };

  /** An edited message is sent after the original's parent: a new branch, the original kept. */
  const edit = (item: UserItem, text: string) => {
    if (readOnly || busy || item.parentId === undefined) return;
    const index = items.findIndex((entry) => entry.id === item.id);
    void send({ text, images: item.images }, { parentMessageId: item.parentId, replaceFrom: index });
  };

  const switchVersion = async (messageId: number) => {
    if (!current || busy) return;
    try {
      await showVersion(agentId, current.key, messageId);
      await refreshHistory();
      // A conversation without a title is named by its shown version's first message.
      void reloadSessions();
    } catch {
      toast(t('chat.versionFailed'), 'error');
    }
  };

  const copy = (text: string) => {
    navigator.clipboard.writeText(text).then(
      () => toast(t('chat.copied'), 'success'),
      () => toast(t('chat.copyRefused'), 'error'),
    );
  };

  /** The conversation continues with another agent: moved there on the server if it is stored. */
  const switchAgent = async (target: string) => {
    if (target === agentId || busy) return;
    if (current) {
      try {
        await api(sessionPath(agentId, current.key), { method: 'PATCH', body: { agentId: target } });
      } catch {
        return;
      }
      const name = agents?.find((entry) => entry.ruleChain.id === target);
      toast(t('chat.moved', { agent: name ? agentName(name) : target }), 'success');
    }
    navigate(href('chat', target, sessionId));
  };

  const openHit = async (hit: SearchHit) => {
    // The branch holding the message becomes the one shown (nothing changes for a single branch).
    try {
      await showVersion(agentId, hit.sessionKey, hit.messageId);
    } catch {
      // toasted; the conversation still opens
    }
    setFocusId(hit.messageId);
    setListOpen(false);
    void reloadSessions();
    const target = keyHref(agentId, hit.sessionKey);
    if (window.location.pathname === target) setHistoryVersion((version) => version + 1);
    else navigate(target);
  };

  const unsaved = Boolean(sessionId) && sessions !== null && !current;

  return (
    <div class={listOpen ? 'chat-page list-open' : 'chat-page'}>
      <ChatSidebar
        agentId={agentId}
        agents={agents}
        sessions={sessions}
        sessionId={sessionId}
        unsaved={unsaved}
        showArchived={showArchived}
        onShowArchived={setShowArchived}
        onNew={() => navigate(href('chat', agentId, newSessionId()))}
        onOpenSession={(session) => {
          setListOpen(false);
          navigate(sessionHref(agentId, session));
        }}
        onOpenHit={(hit) => void openHit(hit)}
        actions={{
          onRename: (session) => void renameSession(agentId, session, reloadSessions),
          onMark: (session, marks) => void markSession(agentId, session, marks, reloadSessions),
          onDelete: (session) =>
            void deleteSession(agentId, session, () => {
              if (session.sessionId === sessionId || session.key === sessionId)
                navigate(href('chat', agentId, newSessionId()), { replace: true });
              void reloadSessions();
            }),
        }}
      />
      <div class="sidebar-backdrop" onClick={() => setListOpen(false)} />
      <section class="chat-main" aria-label={t('chat.conversation')}>
        <ChatHeader
          agentId={agentId}
          agents={agents}
          current={current}
          readOnly={readOnly}
          busy={busy}
          compacting={compacting}
          demo={demo}
          listOpen={listOpen}
          onToggleList={() => setListOpen(!listOpen)}
          onCompact={() => void compactNow()}
          onExport={(format) =>
            current && void downloadExport(agentId, current.key, format).catch(() => undefined)
          }
          onSwitchAgent={(target) => void switchAgent(target)}
        />
        <Transcript
          items={items}
          focusId={focusId}
          emptyText={
            historyState === 'loading'
              ? t('chat.loading')
              : historyState === 'error'
                ? t('chat.historyFailed')
                : t('chat.start', { agent: agent ? agentName(agent) : agentId })
          }
          busy={busy}
          onRegenerate={readOnly ? undefined : regenerate}
          onEdit={readOnly ? undefined : edit}
          onSwitch={current ? (id) => void switchVersion(id) : undefined}
          onCopy={copy}
        />
        <Composer
          draft={draft}
          onDraft={setDraft}
          busy={busy}
          disabled={readOnly}
          onSend={() => void send(draft)}
          onStop={() => controller.current?.abort()}
        />
      </section>
    </div>
  );
}
