// One agent turn: the session's history in, the agent's chain run with it, the turn's messages
// persisted. A turn is an async iterable of TurnEvents (see turn-events.ts). Turns of one session
// run one at a time; turns of different sessions run concurrently.
import { AsyncQueue } from '../core/async.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import { LocalLocks, type Locks } from '../cluster/locks.ts';
import type { Conversation } from '../engine/ai/conversation.ts';
import type { ChatMessage, ModelParams, ToolSpec } from '../model-providers/types.ts';
import type { AgentDirectory } from '../chains/agent-directory.ts';
import type { SessionInfo, SessionStore, SessionWindow } from '../storage/session-store.ts';
import { attributionOf } from '../usage/attribution.ts';
import { reattributed, type ModelCaller } from '../model-providers/caller.ts';
import type { MemoryAccess } from '../tools/types.ts';
import type { AgentModel } from './agent-model.ts';
import type { CompactionResult, Compactor } from './compactor.ts';
import { closeToolCalls, resumeWith } from './tool-history.ts';
import type { TurnEvent, TurnOutput } from './turn-events.ts';
import { branchStart, type TurnBranch } from './turn-branch.ts';
import { failureOf, TurnFold } from './turn-fold.ts';
import type { TurnObserver, TurnOrigin } from './turn-observer.ts';
import {
  DEFAULT_TURN_LIMITS,
  isTurnTimeout,
  lockedTurn,
  settleWithin,
  WIND_DOWN_MS,
  withTimeLimit,
  type SessionQueues,
  type TurnLimits,
} from './turn-limits.ts';

export interface TurnInput {
  agentId: string;
  input: string;
  /** Pictures sent with the input (URLs, usually data: URLs), for vision models. */
  images?: string[];
  /** Earlier messages for a stateless turn (ignored when `session` is set). */
  history?: ChatMessage[];
  /** `branch`: where the turn starts when it does not follow the active branch (turn-branch.ts). */
  session?: { key: string; info: SessionInfo; branch?: TurnBranch };
  params?: ModelParams;
  /** Tools the client runs itself; a turn whose model calls one ends with those calls (`toolCalls`). */
  clientTools?: ToolSpec[];
  /**
   * The client's results (tool messages) of the calls the previous turn ended on: the turn continues
   * from them instead of from `input`.
   */
  resume?: ChatMessage[];
  /** System messages from the client (AG-UI context), given to the model before the history; not kept. */
  context?: ChatMessage[];
  metadata?: Record<string, string>;
  /** Who started the turn (account, requester, traceparent), for the observer. */
  origin?: TurnOrigin;
  /** Stops the turn (a client that went away, a time limit). Ending the iteration stops it too. */
  signal: AbortSignal;
}

function userMessage(input: TurnInput): ChatMessage {
  return { role: 'user', content: input.input, ...(input.images?.length ? { images: input.images } : {}) };
}

export interface TurnMemory {
  /** Compacts sessions whose next request would pass the trigger; without it history is cut to the store's limits. */
  compactor?: Compactor;
  /** The memory tools' access for a turn of an agent (and its session, which scopes transcript search). */
  access?: (agentId: string, sessionKey: string | undefined) => MemoryAccess;
  /** The agent's model, for a compaction asked for by hand. */
  model?: (agentId: string) => AgentModel;
}

export class TurnRunner {
  /** Turns waiting for or holding each session's lock (bounded by limits.maxQueued). */
  private readonly queued: SessionQueues = new Map();

  constructor(
    private readonly agents: AgentDirectory,
    private readonly sessions: SessionStore,
    /** One turn at a time per session: in this process, or (clustered) across instances. */
    private readonly locks: Locks = new LocalLocks(),
    private readonly memory: TurnMemory = {},
    /** Told of every turn (live events, metrics, traces); optional. */
    private readonly observer?: TurnObserver,
    /** Time limit of a turn and the bound of a session's queue (read at each turn). */
    private readonly limits: TurnLimits = DEFAULT_TURN_LIMITS,
  ) {}

  /** Runs `work` while no turn of the session runs (waiting at most 30 s for the one that does). */
  inSession<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.locked(key, AbortSignal.timeout(30_000), work);
  }

  /** Runs `work` holding the session's lock, bounded as lockedTurn (turn-limits.ts) says. */
  private locked<T>(key: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    return lockedTurn(this.locks, this.queued, this.limits.maxQueued(), key, signal, work);
  }

  /** Turns waiting for or holding a session's lock now (0 when none): for tests and diagnostics. */
  queuedTurns(key: string): number {
    return this.queued.get(key) ?? 0;
  }

  /**
   * Compacts a session now (POST .../compact), under the session's lock like a turn: the memory
   * flush, then the summary of all but the newest turns (keep_recent_tokens).
   */
  async compact(agentId: string, key: string, signal: AbortSignal): Promise<CompactionResult> {
    const { compactor, access, model } = this.memory;
    if (!compactor || !access || !model) throw new AppError('unavailable', 'compaction is not available');
    this.agents.require(agentId);
    const target = model(agentId);
    return this.locked(key, signal, () =>
      compactor.compact(
        // Compacting by hand is metered as the agent's, on no channel.
        { key, agentId, memory: access(agentId, key), caller: reattributed(undefined, { agentId }) },
        {
          system: [],
          inputs: [],
          tools: [],
          provider: target.provider,
          model: target.model,
          window: target.window,
          reserve: 0,
          compaction: target.compaction,
          signal,
        },
        'manual',
      ),
    );
  }

  /** Throws 404 for an unknown agent and 409 for one that is not loaded. Call before streaming. */
  checkAgent(agentId: string): void {
    this.agents.require(agentId);
  }

  /** Throws 404/400 for a branch (edit, regenerate) the stored session does not allow. Call before streaming. */
  async checkBranch(session: NonNullable<TurnInput['session']>): Promise<void> {
    if (session.branch) await branchStart(this.sessions, session.key, session.branch);
  }

  /**
   * The turn's input and history, under the session's lock: a turn on a branch first moves the
   * session's active leaf to where it starts (a regenerated answer's input is the stored message).
   */
  private async opening(input: TurnInput): Promise<{ input: TurnInput; history: ChatMessage[] }> {
    const session = input.session as NonNullable<TurnInput['session']>;
    if (!session.branch) return { input, history: await this.historyOf(input, session.key) };
    const start = await branchStart(this.sessions, session.key, session.branch);
    await this.sessions.checkout(session.key, start.leaf);
    const turn = start.input
      ? { ...input, input: start.input.text, ...(start.input.images ? { images: start.input.images } : {}) }
      : input;
    return { input: turn, history: await this.historyOf(turn, session.key) };
  }

  /**
   * The stored history a turn starts from. With a compactor the agent node reads it itself, once the
   * turn's opening is stored (Compactor.control): only a turn resuming client tool calls needs it here.
   */
  private async historyOf(input: TurnInput, key: string): Promise<ChatMessage[]> {
    if (this.memory.compactor && this.memory.access && !input.resume) return [];
    return this.sessions.history(key);
  }

  /**
   * Runs one turn. Nothing starts until the events are iterated; leaving the loop early (break, a
   * thrown error) stops the turn. The last event is `done` or `error`.
   */
  run(input: TurnInput): AsyncIterable<TurnEvent> {
    return { [Symbol.asyncIterator]: () => this.start(input) };
  }

  /**
   * The folded turn, for callers that do not stream (a non-streamed chat answer, a cron run): the
   * same run as `run()` with its events dropped instead of queued, so it costs no queue hop per
   * event. Equivalent to collectTurn(run(input)).
   */
  async complete(input: TurnInput): Promise<TurnOutput> {
    const ignore = (): void => undefined;
    const session = input.session;
    const limited = withTimeLimit(input.signal, this.limits.timeoutMs());
    const signal = limited.signal;
    const turn = { ...input, signal };
    try {
      return await (session
        ? this.locked(session.key, signal, async () => {
            const opened = await this.opening(turn);
            return this.runNow(opened.input, opened.history, ignore);
          })
        : settleWithin(this.runNow(turn, input.history ?? [], ignore), signal, () => WIND_DOWN_MS));
    } finally {
      limited.dispose();
    }
  }

  /**
   * A hand-written iterator rather than an async generator: a generator's return() waits behind a
   * pending next(), so a consumer could not stop a turn that is waiting on its model.
   */
  private start(input: TurnInput): AsyncIterator<TurnEvent> {
    const limited = withTimeLimit(input.signal, this.limits.timeoutMs());
    const stop = limited.controller;
    const signal = limited.signal;
    const queue = new AsyncQueue<TurnEvent>();
    const emit = (event: TurnEvent): void => queue.push(event);
    const session = input.session;
    let ended = false;
    const running = (
      session
        ? this.locked(session.key, signal, async () => {
            const opened = await this.opening({ ...input, signal });
            return this.runNow(opened.input, opened.history, emit);
          })
        : settleWithin(
            this.runNow({ ...input, signal }, input.history ?? [], emit),
            signal,
            () => WIND_DOWN_MS,
          )
    )
      .then(
        (output): TurnEvent => ({ type: 'done', ...output }),
        (error: unknown): TurnEvent => ({
          type: 'error',
          error: error instanceof Error ? error : new Error(String(error)),
        }),
      )
      .then((last) => {
        // Marked before the last event is seen, so a consumer leaving after it stops nothing.
        ended = true;
        limited.dispose();
        emit(last);
        queue.close();
      });
    const events = queue[Symbol.asyncIterator]();
    const finish = async (): Promise<IteratorReturnResult<undefined>> => {
      // Leaving after `done` is the usual end: only a turn still running is stopped.
      if (!ended) stop.abort(new AppError('unavailable', 'the turn was stopped'));
      queue.close();
      await running;
      return { done: true, value: undefined };
    };
    return {
      next: () => events.next(),
      return: finish,
      throw: async (error: unknown) => {
        await finish();
        throw error;
      },
    };
  }

  /**
   * Runs the turn, reported to the observer when there is one. Every model call of the turn (and of
   * what it starts) is metered as this agent's, channel's and user's: its caller says so.
   */
  private async runNow(
    input: TurnInput,
    history: ChatMessage[],
    emit: (event: TurnEvent) => void,
  ): Promise<TurnOutput> {
    const attribution = attributionOf(input.agentId, input.metadata);
    const observer = this.observer;
    if (!observer) return this.runTurn(input, history, emit, { attribution });
    this.agents.require(input.agentId);
    const metadata = input.metadata ?? {};
    const turn = observer.turnStarted({
      agentId: input.agentId,
      channel: metadata['channel'] ?? 'api',
      metadata,
      owner: input.origin?.owner,
      requester: input.origin?.requester ?? metadata['senderId'],
      traceparent: input.origin?.traceparent,
      input: input.input,
      stored: input.session !== undefined,
    });
    const report = (event: TurnEvent): void => {
      if (event.type !== 'done' && event.type !== 'error') turn.event(event);
      emit(event);
    };
    return this.runTurn(input, history, report, { attribution, turn }).then(
      (output) => {
        observer.turnEnded(turn, output.text);
        return output;
      },
      (error: unknown) => {
        observer.turnEnded(turn, undefined, error);
        throw error;
      },
    );
  }

  private async runTurn(
    input: TurnInput,
    history: ChatMessage[],
    emit: (event: TurnEvent) => void,
    caller: ModelCaller,
  ): Promise<TurnOutput> {
    this.agents.require(input.agentId);
    const resume = input.resume ? resumeWith(history, input.resume) : undefined;
    const shape = (messages: ChatMessage[]): ChatMessage[] => [
      ...(input.context ?? []),
      ...closeToolCalls(messages, resume !== undefined),
    ];
    const session = input.session;
    // The turn's opening (the user's message, or the client's tool results) is kept before it runs,
    // so a turn that is stopped or fails still leaves it in the session.
    // A regenerated answer follows its stored user message: nothing new opens the turn.
    const again = session?.branch?.regenerate;
    if (session && again !== undefined) await this.sessions.checkout(session.key, again);
    const memory = this.memory.access?.(input.agentId, session?.key);
    const compactor = this.memory.compactor;
    // The compactor's first read of the session comes with the opening's append (PostgreSQL: one
    // statement for both).
    const before: { window?: SessionWindow } = {};
    const windowBefore =
      compactor && memory ? (window: SessionWindow): void => void (before.window = window) : undefined;
    const openingIds = session
      ? again !== undefined
        ? [again]
        : await this.sessions.append(
            session.key,
            session.info,
            resume ?? [userMessage(input)],
            windowBefore ? { windowBefore } : {},
          )
      : [];
    const conversation: Conversation = {
      history: shape(history),
      ...(input.images?.length ? { images: input.images } : {}),
      ...(input.params ? { params: input.params } : {}),
      ...(input.clientTools?.length ? { clientTools: input.clientTools } : {}),
      ...(resume ? { resume } : {}),
      ...(memory ? { memory } : {}),
      ...(session && compactor && memory
        ? {
            context: compactor.control(
              {
                key: session.key,
                agentId: input.agentId,
                memory,
                caller,
                ...(openingIds[0] ? { beforeId: openingIds[0] } : {}),
                ...(before.window ? { opened: before.window } : {}),
              },
              shape,
            ),
          }
        : {}),
    };
    // The run's events, folded: text, tool calls and usage go on; the rest is kept for the end.
    const fold = new TurnFold(emit);
    const keepUnfinished = async (error: unknown): Promise<void> => {
      if (!session) return;
      // A turn past its time limit failed; one stopped by its client (or a shutdown) was stopped.
      const stopped = input.signal.aborted && !isTurnTimeout(input.signal);
      await this.sessions.append(
        session.key,
        session.info,
        [{ role: 'assistant', content: fold.text === '' ? null : fold.text }],
        {
          status: stopped ? 'stopped' : 'failed',
          ...(stopped ? {} : { error: errorMessage(error) }),
        },
      );
    };
    let result: Awaited<ReturnType<AgentDirectory['run']>>;
    try {
      result = await this.agents.run(input.agentId, input.input, input.metadata ?? {}, {
        signal: input.signal,
        onEvent: fold.add,
        turn: { agentId: input.agentId, conversation, caller },
      });
    } catch (thrown) {
      const error = isTurnTimeout(input.signal) ? (input.signal.reason as Error) : thrown;
      await keepUnfinished(error);
      throw error;
    }
    if (result.outcome === 'failure') {
      const error = isTurnTimeout(input.signal)
        ? (input.signal.reason as Error)
        : failureOf(input.agentId, result);
      await keepUnfinished(error);
      throw error;
    }
    fold.answerWith(result);
    const { text, usage, toolCalls } = fold;
    if (session) {
      await this.sessions.append(session.key, session.info, fold.answerMessages(), usage ? { usage } : {});
    }
    return { text, usage, ...(toolCalls ? { toolCalls } : {}) };
  }
}
