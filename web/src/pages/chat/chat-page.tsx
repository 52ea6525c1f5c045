// Chat: pick an agent (main by default), pick or start a conversation, and talk to it. History comes
// from the server, so a reload shows the same conversation; "New conversation" keeps the old one.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useEscape } from '../../ui/use-escape.ts';
import { api, apiAll, ApiError, request, streamEvents } from '../../api.ts';
import { href, navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import type { AgentView, SessionView } from '../../types.ts';
import { agentName } from '../../types.ts';
import { confirmAction, promptText } from '../../ui/confirm.tsx';
import { Icon } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';
import type { AssistantItem, ChatItem, StoredMessage, UserItem } from './chat-model.ts';
import { applyChunk, fromHistory, itemId } from './chat-model.ts';
import { Composer } from './composer.tsx';
import type { Draft } from './drafts.ts';
import { loadDraft, saveDraft } from './drafts.ts';
import { SessionList, sessionTitle } from './session-list.tsx';
import { Transcript } from './transcript.tsx';

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

function sessionPath(agentId: string, sessionId: string): string {
  return `/agents/${encodeURIComponent(agentId)}/sessions/${encodeURIComponent(sessionId)}`;
}

export function ChatPage({ params }: PageProps) {
  const [agentParam, sessionParam] = params;
  const [agents, setAgents] = useState<AgentView[] | null>(null);
  const [sessions, setSessions] = useState<SessionView[] | null>(null);
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
  const controller = useRef<AbortController | null>(null);

  const agentId = agentParam ?? '';
  const sessionId = sessionParam ?? '';

  useEffect(() => {
    apiAll<AgentView>('/agents').then(setAgents, () => setAgents([]));
    api<{ demo?: boolean }>('/config/models', { quiet: true }).then(
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
      setSessions(await apiAll<SessionView>(`/agents/${encodeURIComponent(agentId)}/sessions`));
    } catch {
      setSessions([]);
    }
  }, [agentId]);

  useEffect(() => {
    setSessions(null);
    void reloadSessions();
  }, [reloadSessions]);

  // /ui/chat/<agent> opens its latest conversation, or a new one.
  useEffect(() => {
    if (!agentId || sessionParam || !sessions) return;
    const latest = sessions.find((session) => session.channel === 'api' && session.scope === 'per_peer');
    navigate(href('chat', agentId, latest ? latest.sessionId : newSessionId()), { replace: true });
  }, [agentId, sessionParam, sessions]);

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
    apiAll<StoredMessage>(`${sessionPath(agentId, sessionId)}/messages`, { quiet: true }).then(
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
          toast(`History not loaded: ${error.message}`, 'error');
      },
    );
    return () => {
      live = false;
    };
    // The list's later reloads (after each answer) must not reload the history being shown.
  }, [agentId, sessionId, sessionsLoaded, historyVersion]);

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
      const result = await api<{ compacted: boolean; folded: number; reason?: string }>(
        `${sessionPath(agentId, current.key)}/compact`,
        { method: 'POST' },
      );
      toast(
        result.compacted
          ? `Compacted: ${result.folded} messages folded into a summary`
          : `Nothing compacted: ${result.reason ?? 'nothing to fold'}`,
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
      ? `This conversation came through the ${current.channel} channel: it can be read here, not continued.`
      : sessionId.startsWith('agent:')
        ? 'This conversation can be read here, not continued.'
        : agent && !agent.status.loaded
          ? 'This agent did not load, so it cannot answer. Fix it on the Agents page.'
          : agents && !agent
            ? `There is no agent "${agentId}".`
            : null;

  const send = async (message: Draft, replaceFrom?: number) => {
    const user: UserItem = { kind: 'user', id: itemId(), text: message.text, images: message.images };
    let turn: AssistantItem = { kind: 'assistant', id: itemId(), text: '', tools: [], status: 'streaming' };
    const before = replaceFrom === undefined ? items : items.slice(0, replaceFrom);
    setItems([...before, user, turn]);
    setDraftState({ text: '', images: [] });
    setBusy(true);
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
        },
        { headers: { 'x-stream-protocol': 'agui' }, signal: abort.signal, quiet: true },
      );
      for await (const payload of events) {
        if (!started) {
          started = true;
          // The server has the message now: the draft can go.
          saveDraft(agentId, sessionId, { text: '', images: [] });
        }
        update(applyChunk(turn, payload));
      }
      update({ ...turn, status: turn.status === 'failed' ? 'failed' : 'done' });
    } catch (error) {
      if (abort.signal.aborted) {
        update({ ...turn, status: 'stopped' });
      } else if (error instanceof ApiError && error.status === 0 && !started) {
        // The server is down: nothing was sent. Put the message back where it was typed.
        setItems((list) => list.filter((item) => item.id !== user.id && item.id !== turn.id));
        setDraft(message);
        toast(
          'The server cannot be reached: your message is kept. Send it again when the server is back.',
          'error',
        );
      } else {
        const text = error instanceof Error ? error.message : 'the answer failed';
        update({ ...turn, status: 'failed', error: text });
      }
    } finally {
      controller.current = null;
      setBusy(false);
      void reloadSessions();
    }
  };

  const retry = () => {
    if (readOnly) return;
    let index = -1;
    items.forEach((item, at) => {
      if (item.kind === 'user') index = at;
    });
    const last = items[index];
    if (!last || last.kind !== 'user' || busy) return;
    void send({ text: last.text, images: last.images }, index);
  };

  const copy = (text: string) => {
    navigator.clipboard.writeText(text).then(
      () => toast('Copied', 'success'),
      () => toast('Copying is not allowed here', 'error'),
    );
  };

  const rename = async (session: SessionView) => {
    const title = await promptText({
      title: 'Rename conversation',
      label: 'Title',
      value: sessionTitle(session),
    });
    if (title === null) return;
    await api(sessionPath(agentId, session.key), { method: 'PATCH', body: { title } });
    void reloadSessions();
  };

  const remove = async (session: SessionView) => {
    const confirmed = await confirmAction({
      title: 'Delete conversation',
      message: `Delete "${sessionTitle(session)}" and its ${session.messageCount} messages? This cannot be undone.`,
      confirmLabel: 'Delete',
      danger: true,
    });
    if (!confirmed) return;
    await request(sessionPath(agentId, session.key), { method: 'DELETE' });
    toast('Conversation deleted', 'success');
    if (session.sessionId === sessionId || session.key === sessionId)
      navigate(href('chat', agentId, newSessionId()), { replace: true });
    void reloadSessions();
  };

  const unsaved = Boolean(sessionId) && sessions !== null && !current;

  return (
    <div class={listOpen ? 'chat-page list-open' : 'chat-page'}>
      <aside class="chat-sidebar" aria-label="Agent and conversations">
        <label class="field">
          <span class="field-label">Agent</span>
          <select
            class="input"
            aria-label="Agent"
            value={agentId}
            onChange={(event) => navigate(href('chat', event.currentTarget.value))}
          >
            {agents?.map((entry) => (
              <option key={entry.ruleChain.id} value={entry.ruleChain.id}>
                {agentName(entry)}
                {entry.ruleChain.name && entry.ruleChain.name !== entry.ruleChain.id
                  ? ` (${entry.ruleChain.id})`
                  : ''}
                {entry.status.loaded ? '' : ' (load error)'}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          class="btn btn-block"
          onClick={() => navigate(href('chat', agentId, newSessionId()))}
          disabled={!agentId}
        >
          <Icon name="plus" /> New conversation
        </button>
        {sessions === null ? (
          <p class="muted">Loading conversations…</p>
        ) : (
          <SessionList
            agentId={agentId}
            sessions={sessions}
            currentId={sessionId}
            unsaved={unsaved}
            onRename={(session) => void rename(session)}
            onDelete={(session) => void remove(session)}
          />
        )}
      </aside>
      <div class="sidebar-backdrop" onClick={() => setListOpen(false)} />
      <section class="chat-main" aria-label="Conversation">
        <header class="chat-header">
          <button
            type="button"
            class="btn btn-ghost conversations-toggle"
            aria-expanded={listOpen}
            onClick={() => setListOpen(!listOpen)}
          >
            <Icon name="chat" /> Conversations
          </button>
          <h1 class="chat-title">{current ? sessionTitle(current) : 'New conversation'}</h1>
          {current && (
            <button
              type="button"
              class="btn btn-ghost"
              disabled={busy || compacting}
              title="Summarise the older turns now (after a memory flush); every message stays readable"
              onClick={() => void compactNow()}
            >
              {compacting ? 'Compacting…' : 'Compact now'}
            </button>
          )}
          {demo && (
            <span
              class="badge badge-warn"
              title="No model provider is configured: agents answer with the built-in demo model."
            >
              Demo model
            </span>
          )}
        </header>
        <Transcript
          items={items}
          emptyText={
            historyState === 'loading'
              ? 'Loading…'
              : historyState === 'error'
                ? 'The history could not be loaded.'
                : `Start a conversation with ${agent ? agentName(agent) : agentId}.`
          }
          onRetry={readOnly ? undefined : retry}
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
