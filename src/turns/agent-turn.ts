// One agent turn: the session's history in, the agent's chain run with it, the turn's messages
// persisted. A turn is an async iterable of TurnEvents (see turn-events.ts). Turns of one session
// run one at a time; turns of different sessions run concurrently.
import { AsyncQueue } from '../core/async.ts';
import { AppError, errorMessage, isAppError } from '../core/errors.ts';
import { LocalLocks, type Locks } from '../cluster/locks.ts';
import type { Conversation } from '../engine/ai/conversation.ts';
import type { RunEvent } from '../engine/types.ts';
import type { ChatMessage, ModelParams, ToolCallRequest, ToolSpec, Usage } from '../model-providers/types.ts';
import type { AgentDirectory } from '../chains/agent-directory.ts';
import type { SessionInfo, SessionStore } from '../storage/session-store.ts';
import { attributionOf, withAttribution } from '../usage/attribution.ts';
import type { MemoryAccess } from '../tools/types.ts';
import type { AgentModel } from './agent-model.ts';
import type { CompactionResult, Compactor } from './compactor.ts';
import { closeToolCalls, resumeWith } from './tool-history.ts';
import type { TurnEvent, TurnOutput } from './turn-events.ts';
import { branchStart, type TurnBranch } from './turn-branch.ts';
import type { TurnObserver, TurnOrigin } from './turn-observer.ts';

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

/** A node's recorded messages without its inputs (everything before its first answer). */
function afterInputs(recorded: ChatMessage[]): ChatMessage[] {
  const first = recorded.findIndex((message) => message.role === 'assistant');
  return first < 0 ? [] : recorded.slice(first);
}

function addUsage(total: Usage | undefined, next: Usage): Usage {
  if (!total) return { ...next };
  const model = next.model ?? total.model;
  const cached = (total.cachedTokens ?? 0) + (next.cachedTokens ?? 0);
  const reasoning = (total.reasoningTokens ?? 0) + (next.reasoningTokens ?? 0);
  return {
    promptTokens: total.promptTokens + next.promptTokens,
    completionTokens: total.completionTokens + next.completionTokens,
    totalTokens: total.totalTokens + next.totalTokens,
    ...(cached ? { cachedTokens: cached } : {}),
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    ...(model ? { model } : {}),
  };
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
  constructor(
    private readonly agents: AgentDirectory,
    private readonly sessions: SessionStore,
    /** One turn at a time per session: in this process, or (clustered) across instances. */
    private readonly locks: Locks = new LocalLocks(),
    private readonly memory: TurnMemory = {},
    /** Told of every turn (live events, metrics, traces); optional. */
    private readonly observer?: TurnObserver,
  ) {}

  /** Runs `work` while no turn of the session runs (waiting at most 30 s for the one that does). */
  inSession<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.locked(key, AbortSignal.timeout(30_000), work);
  }

  /** Runs `work` holding the session's lock; waiting ends when the turn's signal aborts. */
  private locked<T>(key: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    return this.locks.run(`session:${key}`, work, { signal });
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
        { key, agentId, memory: access(agentId, key) },
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
    if (!session.branch) return { input, history: await this.sessions.history(session.key) };
    const start = await branchStart(this.sessions, session.key, session.branch);
    await this.sessions.checkout(session.key, start.leaf);
    const turn = start.input
      ? { ...input, input: start.input.text, ...(start.input.images ? { images: start.input.images } : {}) }
      : input;
    return { input: turn, history: await this.sessions.history(session.key) };
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
  complete(input: TurnInput): Promise<TurnOutput> {
    const ignore = (): void => undefined;
    const session = input.session;
    // Every model call of the turn (and of what it starts) is metered as this agent's, channel's and user's.
    return withAttribution(attributionOf(input.agentId, input.metadata), () =>
      session
        ? this.locked(session.key, input.signal, async () => {
            const opened = await this.opening(input);
            return this.runNow(opened.input, opened.history, ignore);
          })
        : this.runNow(input, input.history ?? [], ignore),
    );
  }

  /**
   * A hand-written iterator rather than an async generator: a generator's return() waits behind a
   * pending next(), so a consumer could not stop a turn that is waiting on its model.
   */
  private start(input: TurnInput): AsyncIterator<TurnEvent> {
    const stop = new AbortController();
    // Linked by hand: AbortSignal.any costs more per turn and, on Node 20, holds on to its sources.
    const follow = (): void => stop.abort(input.signal.reason);
    if (input.signal.aborted) follow();
    else input.signal.addEventListener('abort', follow, { once: true });
    const signal = stop.signal;
    const queue = new AsyncQueue<TurnEvent>();
    const emit = (event: TurnEvent): void => queue.push(event);
    const session = input.session;
    let ended = false;
    const running = withAttribution(attributionOf(input.agentId, input.metadata), () =>
      session
        ? this.locked(session.key, signal, async () => {
            const opened = await this.opening({ ...input, signal });
            return this.runNow(opened.input, opened.history, emit);
          })
        : this.runNow({ ...input, signal }, input.history ?? [], emit),
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
        input.signal.removeEventListener('abort', follow);
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

  /** Runs the turn, reported to the observer when there is one. */
  private async runNow(
    input: TurnInput,
    history: ChatMessage[],
    emit: (event: TurnEvent) => void,
  ): Promise<TurnOutput> {
    const observer = this.observer;
    if (!observer) return this.runTurn(input, history, emit);
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
    return observer
      .runInTurn(turn, () => this.runTurn(input, history, report))
      .then(
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
  ): Promise<TurnOutput> {
    this.agents.require(input.agentId);
    let recorded: ChatMessage[] | undefined;
    let toolCalls: ToolCallRequest[] | undefined;
    // What failing nodes threw, from their node-end events: the turn's error keeps its cause's kind.
    const causes: Array<{ error: string; cause: unknown }> = [];
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
    const openingIds = session
      ? again !== undefined
        ? [again]
        : await this.sessions.append(session.key, session.info, resume ?? [userMessage(input)])
      : [];
    const memory = this.memory.access?.(input.agentId, session?.key);
    const compactor = this.memory.compactor;
    const conversation: Conversation = {
      history: shape(history),
      ...(input.images?.length ? { images: input.images } : {}),
      ...(input.params ? { params: input.params } : {}),
      ...(input.clientTools?.length
        ? { clientTools: { specs: input.clientTools, called: (calls) => (toolCalls = calls) } }
        : {}),
      ...(resume ? { resume } : {}),
      record: (messages) => (recorded = messages),
      ...(memory ? { memory } : {}),
      ...(session && compactor && memory
        ? {
            context: compactor.control(
              {
                key: session.key,
                agentId: input.agentId,
                memory,
                ...(openingIds[0] ? { beforeId: openingIds[0] } : {}),
              },
              shape,
            ),
          }
        : {}),
    };
    let text = '';
    let usage: Usage | undefined;
    const onEvent = (event: RunEvent): void => {
      switch (event.type) {
        case 'text-delta':
          text += event.text;
          emit(event);
          break;
        case 'usage':
          usage = addUsage(usage, event.usage);
          emit(event);
          break;
        case 'tool-call-start':
        case 'tool-call-result':
          emit(event);
          break;
        case 'node-end':
          if (event.error !== undefined && event.cause !== undefined)
            causes.push({ error: event.error, cause: event.cause });
          break;
        case 'node-start':
        case 'run-end':
          break;
      }
    };
    const keepUnfinished = async (error: unknown): Promise<void> => {
      if (!session) return;
      const stopped = input.signal.aborted;
      await this.sessions.append(
        session.key,
        session.info,
        [{ role: 'assistant', content: text === '' ? null : text }],
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
        onEvent,
        turn: { agentId: input.agentId, conversation },
      });
    } catch (error) {
      await keepUnfinished(error);
      throw error;
    }
    if (result.outcome === 'failure') {
      // The node whose Failure failed the run: its AppError gives the answer's status (502, 504).
      const failed = causes.find((entry) => entry.error === result.error && isAppError(entry.cause));
      const error = failed
        ? (failed.cause as Error)
        : new AppError('upstream', `agent "${input.agentId}" failed: ${result.error ?? 'unknown error'}`);
      await keepUnfinished(error);
      throw error;
    }
    if (text === '' && !toolCalls && result.results.length > 0) {
      // A chain without a model node: its result is the answer; report it as text too.
      text = result.results.map((message) => message.data).join('\n');
      emit({ type: 'text-delta', text });
    }
    if (session) {
      // The node reports its inputs first; the opening is stored already.
      const messages = recorded ? afterInputs(recorded) : [{ role: 'assistant' as const, content: text }];
      await this.sessions.append(session.key, session.info, messages, usage ? { usage } : {});
    }
    return { text, usage, ...(toolCalls ? { toolCalls } : {}) };
  }
}
