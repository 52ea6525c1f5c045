// Lossless compaction of a session. When the next request would pass the trigger (a share of the
// model's window), on a provider's "context too long", or by hand, the older turns are summarised
// into a summary entry recording the range it folds; the messages stay stored and searchable. The
// request is then: system prompt, summary, the newest turns verbatim. Before each compaction the
// agent gets one silent memory-flush turn. A summary that fails its guard leaves the history as it
// was. Callers hold the session's lock, so one compaction runs per session (across instances too).
import type { ModelCaller } from '../model-providers/caller.ts';
import {
  compactionSettings,
  type CompactionOverride,
  type CompactionSettings,
} from '../config/compaction.ts';
import { AppError, isAppError } from '../core/errors.ts';
import type { ContextControl, ContextRequest } from '../engine/ai/conversation.ts';
import { requestTokens } from '../engine/ai/context-fit.ts';
import type { ModelRegistry } from '../model-providers/registry.ts';
import type { ChatMessage } from '../model-providers/types.ts';
import type { SessionStore, SessionWindow, StoredMessage, StoredSummary } from '../storage/session-store.ts';
import { forModel, summaryMessage } from '../storage/session-history.ts';
import type { MemoryAccess } from '../tools/types.ts';
import { extractIdentifiers } from './identifiers.ts';
import { flushMemory } from './memory-flush.ts';
import { summarise, type SummaryTarget } from './summariser.ts';

export type CompactionTrigger = 'threshold' | 'overflow' | 'manual';

export interface CompactionResult {
  compacted: boolean;
  /** Why nothing was folded, or why the compaction failed. */
  reason?: string;
  summary?: StoredSummary;
  folded: number;
  flushed: boolean;
}

export interface CompactorDeps {
  sessions: SessionStore;
  /** agents.defaults.compaction of the current configuration. */
  defaults: () => CompactionOverride | undefined;
  /** The provider of a `provider/model` compaction model. */
  models: Pick<ModelRegistry, 'get'>;
  /** Told of every compaction and failed attempt (logs, tests). */
  onCompaction?: (event: { key: string; trigger: CompactionTrigger; result: CompactionResult }) => void;
  /** Tries per summary piece (default 3) and time limit per summariser call. */
  attempts?: number;
  timeoutMs?: number;
}

export interface SessionRef {
  key: string;
  agentId: string;
  memory: MemoryAccess;
  /** Who the flush and summary calls are for: the turn's caller. */
  caller?: ModelCaller | undefined;
  /** Messages from this id on belong to the running turn: never folded, never sent as history. */
  beforeId?: number;
  /** The window as the turn's opening found it (read with its append): the turn's first read. */
  opened?: SessionWindow;
}

/** Where the kept tail starts: a user message, so no tool call is parted from its results. */
function keepFrom(
  messages: StoredMessage[],
  keepTokens: number,
  maxTailTokens: number,
  onlyLastTurn: boolean,
): number {
  const starts = messages.flatMap((entry, index) => (entry.message.role === 'user' ? [index] : []));
  if (starts.length === 0) return 0;
  if (onlyLastTurn) return starts.at(-1) ?? 0;
  let tail = 0;
  let from = messages.length;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    tail += messages[index]?.tokens ?? 0;
    if (messages[index]?.message.role === 'user') from = index;
    if (tail >= keepTokens && from <= index) break;
  }
  // A tail that alone would pass the trigger keeps fewer turns.
  let size = messages.slice(from).reduce((sum, entry) => sum + entry.tokens, 0);
  for (const start of starts) {
    if (start <= from) continue;
    if (size <= maxTailTokens) break;
    size -= messages.slice(from, start).reduce((sum, entry) => sum + entry.tokens, 0);
    from = start;
  }
  return from === messages.length ? (starts.at(-1) ?? 0) : from;
}

export class Compactor {
  constructor(private readonly deps: CompactorDeps) {}

  settings(override: CompactionOverride | undefined): CompactionSettings {
    return compactionSettings(this.deps.defaults(), override);
  }

  /** The ContextControl of one turn of a session. */
  control(session: SessionRef, shape: (history: ChatMessage[]) => ChatMessage[]): ContextControl {
    // Read with the opening's append, so the first prepare needs no query; later ones read again.
    let opened = session.opened;
    return {
      prepare: async (request) => {
        const settings = this.settings(request.compaction);
        const known = opened;
        opened = undefined;
        if (!settings.enabled) return shape(await this.deps.sessions.history(session.key, session.beforeId));
        // Stored token counts: the check reads no more than the history it returns anyway.
        const { summary, messages } = known ?? (await this.active(session));
        const history = [...(summary ? [summaryMessage(summary)] : []), ...messages.map(forModel)];
        const total =
          requestTokens([...request.system, ...request.inputs], request.tools) +
          request.reserve +
          (summary?.tokens ?? 0) +
          messages.reduce((sum, entry) => sum + entry.tokens, 0);
        if (total <= (request.window * settings.triggerPercent) / 100) return shape(history);
        const result = await this.compact(session, request, 'threshold');
        return shape(result.compacted ? await this.history(session) : history);
      },
      overflow: async (request) => {
        const result = await this.compact(session, request, 'overflow');
        return result.compacted ? shape(await this.history(session)) : undefined;
      },
    };
  }

  /** Summary and the messages after it, as the model reads them. */
  async history(session: SessionRef): Promise<ChatMessage[]> {
    const { summary, messages } = await this.active(session);
    return [...(summary ? [summaryMessage(summary)] : []), ...messages.map(forModel)];
  }

  /** The newest summary and the messages after it (one query: SessionStore.window), this turn's left out. */
  private async active(
    session: SessionRef,
  ): Promise<{ summary: StoredSummary | undefined; messages: StoredMessage[] }> {
    const { summary, messages } = await this.deps.sessions.window(session.key);
    const before = session.beforeId;
    return {
      summary,
      messages: before === undefined ? messages : messages.filter((entry) => entry.id < before),
    };
  }

  /**
   * Folds the older turns of a session into a new summary entry (after the memory flush). Failures
   * of the summariser leave the session unchanged and are reported in the result, never thrown;
   * only a stopped turn (its signal) throws.
   */
  async compact(
    session: SessionRef,
    request: ContextRequest,
    trigger: CompactionTrigger,
  ): Promise<CompactionResult> {
    const settings = this.settings(request.compaction);
    const { summary, messages } = await this.active(session);
    const fixed = requestTokens([...request.system, ...request.inputs], request.tools) + request.reserve;
    const triggerTokens = Math.floor((request.window * settings.triggerPercent) / 100);
    const room = Math.max(0, triggerTokens - fixed - (summary?.tokens ?? 0));
    const keep = Math.min(settings.keepRecentTokens, Math.floor(room / 2));
    const from = keepFrom(messages, keep, Math.floor(room * 0.6), trigger === 'overflow');
    const folded = messages.slice(0, from);
    const report = (result: CompactionResult): CompactionResult => {
      this.deps.onCompaction?.({ key: session.key, trigger, result });
      return result;
    };
    if (folded.length === 0)
      return report({ compacted: false, reason: 'nothing to fold', folded: 0, flushed: false });
    const target = this.target(settings, request, session.caller);
    const foldedMessages = folded.map(forModel);
    let flushed = false;
    if (settings.memoryFlush) {
      await flushMemory({
        target: { provider: request.provider, model: request.model, caller: session.caller },
        messages: foldedMessages,
        memory: session.memory,
        window: request.window,
        signal: request.signal,
      });
      flushed = true;
    }
    const required = extractIdentifiers(
      [
        summary?.content ?? '',
        ...foldedMessages.flatMap((message) =>
          message.role === 'user' || message.role === 'assistant'
            ? [
                message.content ?? '',
                ...(message.role === 'assistant'
                  ? (message.toolCalls ?? []).map((call) => call.arguments)
                  : []),
              ]
            : [],
        ),
      ].join('\n'),
    );
    let content: string;
    try {
      content = await summarise({
        target,
        previous: summary?.content,
        messages: foldedMessages,
        required,
        window: request.window,
        signal: request.signal,
        ...(this.deps.attempts === undefined ? {} : { attempts: this.deps.attempts }),
        ...(this.deps.timeoutMs === undefined ? {} : { timeoutMs: this.deps.timeoutMs }),
      });
    } catch (error) {
      if (request.signal.aborted || !isAppError(error)) throw error;
      return report({ compacted: false, reason: error.message, folded: 0, flushed });
    }
    const firstId = folded[0]?.id ?? 0;
    const lastId = folded.at(-1)?.id ?? 0;
    const stored = await this.deps.sessions.addSummary(session.key, {
      firstId,
      lastId,
      content,
      previousLastId: summary?.lastId ?? 0,
    });
    if (!stored)
      return report({ compacted: false, reason: 'another compaction came first', folded: 0, flushed });
    const latest = await this.deps.sessions.latestSummary(session.key);
    return report({
      compacted: true,
      folded: folded.length,
      flushed,
      ...(latest ? { summary: latest } : {}),
    });
  }

  private target(
    settings: CompactionSettings,
    request: ContextRequest,
    caller: ModelCaller | undefined,
  ): SummaryTarget {
    if (!settings.model) return { provider: request.provider, model: request.model, caller };
    const slash = settings.model.indexOf('/');
    const providerId = settings.model.slice(0, slash);
    try {
      return { provider: this.deps.models.get(providerId), model: settings.model.slice(slash + 1), caller };
    } catch (error) {
      throw new AppError(
        'invalid',
        `compaction.model: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
