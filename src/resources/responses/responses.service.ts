// The Responses API over agent turns. A request is prepared (validated, its conversation found),
// then run: the turn's events fold into a Response (streamed as events when asked), which is stored
// when `store` is on. Responses running in this process can be read and cancelled while they run.
import type { Principal } from '../../auth/auth-service.ts';
import { AsyncQueue } from '../../core/async.ts';
import { AppError, invalid, isAppError, notFound, type ErrorKind } from '../../core/errors.ts';
import type { ChatMessage } from '../../model-providers/types.ts';
import type { SessionStore } from '../../storage/session-store.ts';
import type { TurnInput, TurnRunner } from '../../turns/agent-turn.ts';
import { apiSession } from '../../chat/chat-request.ts';
import {
  newItemId,
  ResponseBuilder,
  type OutputItem,
  type ResponseShell,
  type StreamEvent,
} from './response-builder.ts';
import { ResponseConversations, type TurnSession } from './response-conversation.ts';
import { itemsToMessages, normalizeInputItem, splitInput, type SplitInput } from './response-input.ts';
import { clientTools, conversationId, ownerOf, responseParams, responseShell } from './response-request.ts';
import type { CreateResponse, InputItem, InputItemsQuery } from './responses.schema.ts';
import type { ResponseStore } from './responses.store.ts';

export interface PreparedResponse {
  shell: ResponseShell;
  owner: string;
  agentId: string;
  store: boolean;
  turn: Omit<TurnInput, 'signal'>;
  inputItems: OutputItem[];
}

export interface RunResult {
  response: Record<string, unknown>;
  /** Why the turn failed (not set when it completed or was cancelled). */
  failure?: Error;
}

interface Running {
  owner: string;
  builder: ResponseBuilder;
  controller: AbortController;
  inputItems: OutputItem[];
  cancelled: boolean;
  finished: Promise<RunResult>;
}

const ERROR_CODES: Partial<Record<ErrorKind, string>> = {
  invalid: 'invalid_prompt',
  'rate-limited': 'rate_limit_exceeded',
  timeout: 'timeout',
  upstream: 'server_error',
};

/** With a session, only the new message (or the function outputs) is read; system items are context. */
function splitForSession(items: InputItem[]): SplitInput & { context: ChatMessage[] } {
  const converted = itemsToMessages(items);
  let start = 0;
  while (converted[start]?.message.role === 'system') start += 1;
  const context = converted.slice(0, start).map((entry) => entry.message);
  const rest = converted.slice(start);
  if (rest.length > 0 && rest.every((entry) => entry.fromFunctionOutput))
    return { input: '', images: [], history: [], resume: rest.map((entry) => entry.message), context };
  const only = rest.length === 1 ? rest[0]?.message : undefined;
  if (only?.role === 'user') return { input: only.content, images: only.images ?? [], history: [], context };
  throw invalid(
    'input: with previous_response_id or conversation, send only the new user message or the function_call_output items (the conversation holds the rest)',
  );
}

export class ResponsesService {
  private readonly running = new Map<string, Running>();
  private readonly conversations: ResponseConversations;
  private readonly now: () => number;

  constructor(
    private readonly turns: TurnRunner,
    sessions: SessionStore,
    private readonly store: ResponseStore,
    private readonly options: {
      /** Clustered: a response stored as running may run on another instance. */
      clustered?: boolean;
      now?: () => number;
    } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.conversations = new ResponseConversations(store, sessions);
  }

  async prepare(body: CreateResponse, principal: Principal | undefined): Promise<PreparedResponse> {
    const agentId = body.model;
    this.turns.checkAgent(agentId);
    const owner = ownerOf(principal);
    const id = newItemId('resp');
    const store = body.store ?? true;
    const items = await this.resolveReferences(
      typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as InputItem[]),
      owner,
    );
    const conversation = conversationId(body);
    let session: TurnSession | undefined;
    let split: SplitInput & { context?: ChatMessage[] };
    if (conversation !== undefined || body.previous_response_id != null) {
      split = splitForSession(items);
      session =
        conversation !== undefined
          ? apiSession(agentId, conversation, principal)
          : await this.conversations.continueFrom({
              previousId: body.previous_response_id as string,
              agentId,
              owner,
              principal,
              responseId: id,
              isRunning: (responseId) => this.running.get(responseId)?.owner === owner,
            });
    } else {
      // Stateless: the items are the whole conversation. A stored response keeps them, and a
      // response that continues it later starts a session from them.
      split = splitInput(items);
    }
    const context: ChatMessage[] = [
      ...(body.instructions ? [{ role: 'system' as const, content: body.instructions }] : []),
      ...(split.context ?? []),
    ];
    const tools = clientTools(body);
    const turn: Omit<TurnInput, 'signal'> = {
      agentId,
      input: split.input,
      ...(split.images.length > 0 ? { images: split.images } : {}),
      history: split.history,
      params: responseParams(body),
      ...(tools.length > 0 ? { clientTools: tools } : {}),
      ...(split.resume ? { resume: split.resume } : {}),
      ...(context.length > 0 ? { context } : {}),
      metadata: { channel: 'api', agentId, responseId: id },
      ...(session ? { session } : {}),
    };
    return {
      shell: responseShell(body, id, this.now()),
      owner,
      agentId,
      store,
      turn,
      inputItems: items.map(normalizeInputItem),
    };
  }

  /**
   * Replaces each item_reference with the stored item it names (one of the caller's own), and fills
   * in the output of a replayed mcp_call that left it out (the Agents SDK does: the server has it).
   */
  private async resolveReferences(items: InputItem[], owner: string): Promise<InputItem[]> {
    const wanted = (item: InputItem): boolean =>
      item.type === 'item_reference' || (item.type === 'mcp_call' && item['output'] == null);
    const ids = items.filter(wanted).map((item) => String(item.id));
    if (ids.length === 0) return items;
    const found = await this.store.findItems(owner, ids);
    return items.map((item, index) => {
      if (!wanted(item)) return item;
      const stored = found.get(String(item.id));
      if (item.type === 'mcp_call')
        return stored?.type === 'mcp_call' ? { ...item, output: stored['output'] } : item;
      if (!stored) throw notFound(`input.${index}: item "${String(item.id)}" does not exist`);
      return stored as unknown as InputItem;
    }) as InputItem[];
  }

  /**
   * Runs a prepared response to its end. `emit` receives the stream's events; `signal` stops the
   * turn (the client went away). A cancelled response ends with status `cancelled`.
   */
  run(
    prepared: PreparedResponse,
    signal: AbortSignal,
    emit?: (event: StreamEvent) => void,
  ): Promise<RunResult> {
    const controller = new AbortController();
    const follow = (): void => controller.abort(signal.reason);
    if (signal.aborted) follow();
    else signal.addEventListener('abort', follow, { once: true });
    const builder = new ResponseBuilder(prepared.shell, emit, this.now);
    const entry: Running = {
      owner: prepared.owner,
      builder,
      controller,
      inputItems: prepared.inputItems,
      cancelled: false,
      finished: Promise.resolve({ response: {} }),
    };
    this.running.set(prepared.shell.id, entry);
    entry.finished = this.fold(prepared, entry).finally(() => {
      signal.removeEventListener('abort', follow);
      this.running.delete(prepared.shell.id);
    });
    return entry.finished;
  }

  /**
   * A prepared response run as its stream of events, for a streamed answer. The stream ends with
   * response.completed or response.failed; after the latter it throws the turn's failure (for the log).
   */
  async *stream(prepared: PreparedResponse, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    const queue = new AsyncQueue<StreamEvent>();
    const finished = this.run(prepared, signal, (event) => queue.push(event)).finally(() => queue.close());
    // Handled here as well, so a consumer that stops early leaves no unhandled rejection behind.
    finished.catch(() => undefined);
    yield* queue;
    const result = await finished;
    if (result.failure) throw result.failure;
  }

  private async fold(prepared: PreparedResponse, entry: Running): Promise<RunResult> {
    const { builder } = entry;
    builder.start();
    let result: RunResult | undefined;
    try {
      for await (const event of this.turns.run({ ...prepared.turn, signal: entry.controller.signal })) {
        if (event.type === 'error') throw event.error;
        if (event.type === 'done') {
          result = { response: builder.complete(event) };
          break;
        }
        builder.apply(event);
      }
      if (!result) throw new AppError('unavailable', 'the turn ended without an answer');
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      result = entry.cancelled
        ? {
            response: builder.fail('cancelled', { code: 'cancelled', message: 'the response was cancelled' }),
          }
        : {
            response: builder.fail('failed', {
              code: (isAppError(failure) && ERROR_CODES[failure.kind]) || 'server_error',
              message: isAppError(failure) ? failure.message : 'internal error',
            }),
            failure,
          };
    }
    if (prepared.store) await this.persist(prepared, result.response, builder.output);
    return result;
  }

  private async persist(
    prepared: PreparedResponse,
    response: Record<string, unknown>,
    output: OutputItem[],
  ): Promise<void> {
    const session = prepared.turn.session;
    const completed = response['status'] === 'completed';
    const background = prepared.shell['background'] === true;
    await this.store.save(
      {
        id: prepared.shell.id,
        owner: prepared.owner,
        agentId: prepared.agentId,
        status: String(response['status']),
        body: response,
        sessionKey: session && completed ? session.key : null,
        sessionEnd: session && completed ? await this.store.sessionEnd(session.key) : null,
        createdAt: prepared.shell.created_at * 1000,
      },
      // A background response stored its input when it started.
      { input: background ? [] : prepared.inputItems, output },
    );
  }

  /** Starts a background response: stored at once as in progress, then run without a client. */
  async startBackground(
    prepared: PreparedResponse,
    onError: (error: unknown) => void,
  ): Promise<Record<string, unknown>> {
    const snapshot = new ResponseBuilder(prepared.shell).snapshot();
    await this.store.save(
      {
        id: prepared.shell.id,
        owner: prepared.owner,
        agentId: prepared.agentId,
        status: 'in_progress',
        body: snapshot,
        sessionKey: null,
        sessionEnd: null,
        createdAt: prepared.shell.created_at * 1000,
      },
      { input: prepared.inputItems, output: [] },
    );
    this.run(prepared, new AbortController().signal).catch(onError);
    return snapshot;
  }

  async get(id: string, principal: Principal | undefined): Promise<Record<string, unknown>> {
    const owner = ownerOf(principal);
    const live = this.running.get(id);
    if (live?.owner === owner) return live.builder.snapshot();
    const stored = await this.store.get(owner, id);
    if (!stored) throw notFound(`response "${id}" does not exist`);
    return stored.body;
  }

  async delete(
    id: string,
    principal: Principal | undefined,
  ): Promise<{ id: string; object: 'response'; deleted: true }> {
    const owner = ownerOf(principal);
    if (this.running.get(id)?.owner === owner)
      throw new AppError('conflict', `response "${id}" is running; cancel it first`);
    if (!(await this.store.delete(owner, id))) throw notFound(`response "${id}" does not exist`);
    return { id, object: 'response', deleted: true };
  }

  /** Cancels a running response and answers it as it ended (status `cancelled`). */
  async cancel(id: string, principal: Principal | undefined): Promise<Record<string, unknown>> {
    const owner = ownerOf(principal);
    const live = this.running.get(id);
    if (live?.owner === owner) {
      live.cancelled = true;
      live.controller.abort(new AppError('unavailable', 'the response was cancelled'));
      return (await live.finished).response;
    }
    const stored = await this.store.get(owner, id);
    if (!stored) throw notFound(`response "${id}" does not exist`);
    if (stored.status === 'cancelled') return stored.body;
    if (stored.status === 'in_progress' || stored.status === 'queued') {
      if (this.options.clustered)
        throw new AppError(
          'conflict',
          `response "${id}" runs on another instance; send the cancel to the instance that runs it`,
        );
      // Stored as running, but not running here: its process ended before it did.
      const body = {
        ...stored.body,
        status: 'cancelled',
        error: { code: 'cancelled', message: 'the response was cancelled' },
      };
      await this.store.save({
        ...stored,
        status: 'cancelled',
        body,
        createdAt: Number(stored.body['created_at']) * 1000,
      });
      return body;
    }
    throw new AppError(
      'conflict',
      `response "${id}" is ${stored.status}; only a running response can be cancelled`,
    );
  }

  async inputItems(id: string, query: InputItemsQuery, principal: Principal | undefined) {
    const owner = ownerOf(principal);
    const live = this.running.get(id);
    let page: { items: OutputItem[]; hasMore: boolean };
    if (live?.owner === owner && live.builder.currentStatus === 'in_progress') {
      const ordered = query.order === 'asc' ? live.inputItems : [...live.inputItems].reverse();
      page = { items: ordered.slice(0, query.limit), hasMore: ordered.length > query.limit };
    } else {
      if (!(await this.store.get(owner, id))) throw notFound(`response "${id}" does not exist`);
      page = await this.store.inputPage(id, query);
    }
    return {
      object: 'list' as const,
      data: page.items,
      first_id: page.items[0]?.id ?? null,
      last_id: page.items.at(-1)?.id ?? null,
      has_more: page.hasMore,
    };
  }
}
