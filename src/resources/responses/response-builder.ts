// A turn's events as a Response: output items (assistant messages, the server's own tool calls as
// `mcp_call` items, the client's function calls as `function_call` items) and, when streamed, the
// Responses API's semantic events, numbered by `sequence_number`. Streamed or not, a response is
// built by this one fold, so the stored, the streamed and the returned shapes always agree.
import { randomUUID } from 'node:crypto';
import type { ToolCallRequest, Usage } from '../../model-providers/types.ts';
import type { TurnEvent } from '../../turns/turn-events.ts';

export type OutputItem = Record<string, unknown> & { type: string; id: string };
export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';
export type StreamEvent = Record<string, unknown> & { type: string; sequence_number: number };

/** The request's side of a Response: everything but status, output, usage and error. */
export type ResponseShell = Record<string, unknown> & { id: string; created_at: number; model: string };

export interface ResponseError {
  code: string;
  message: string;
}

/** An id of `prefix` and 32 hex digits (`resp_...`, `msg_...`, `fc_...`, `mcp_...`). */
export function newItemId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

export function usageObject(usage: Usage | undefined) {
  return {
    input_tokens: usage?.promptTokens ?? 0,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage?.completionTokens ?? 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage?.totalTokens ?? 0,
  };
}

function textPart(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

interface OpenMessage {
  index: number;
  item: OutputItem;
  text: string;
}

export class ResponseBuilder {
  readonly output: OutputItem[] = [];
  private sequence = 0;
  private message: OpenMessage | undefined;
  /** Server tool calls still running: tool call id -> output index. */
  private readonly running = new Map<string, number>();
  private status: ResponseStatus = 'in_progress';
  private usage: Usage | undefined;
  private error: ResponseError | null = null;
  private completedAt: number | null = null;

  constructor(
    private readonly shell: ResponseShell,
    /** Receives the stream's events; absent for a response that is not streamed. */
    private readonly emit?: (event: StreamEvent) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get id(): string {
    return this.shell.id;
  }

  get currentStatus(): ResponseStatus {
    return this.status;
  }

  private send(type: string, fields: Record<string, unknown>): void {
    if (this.emit) this.emit({ type, sequence_number: this.sequence++, ...fields });
  }

  /** The Response as it stands (a copy of the output list, so later events do not change it). */
  snapshot(): Record<string, unknown> {
    return {
      ...this.shell,
      status: this.status,
      completed_at: this.completedAt,
      error: this.error,
      incomplete_details: null,
      // An open message shows the text it has so far (GET of a running response).
      output: this.output.map((item, index) =>
        index === this.message?.index ? { ...item, content: [textPart(this.message.text)] } : { ...item },
      ),
      usage: this.status === 'in_progress' || this.status === 'queued' ? null : usageObject(this.usage),
    };
  }

  /** response.created and response.in_progress: the stream's first two events. */
  start(): void {
    if (!this.emit) return;
    const response = this.snapshot();
    this.send('response.created', { response });
    this.send('response.in_progress', { response });
  }

  apply(event: TurnEvent): void {
    switch (event.type) {
      case 'text-delta':
        if (event.text !== '') this.text(event.text);
        break;
      case 'tool-call-start':
        this.closeMessage();
        this.serverCallStarted(event);
        break;
      case 'tool-call-result':
        this.serverCallEnded(event);
        break;
      case 'usage':
      case 'error':
      case 'done':
        break;
    }
  }

  private text(delta: string): void {
    let open = this.message;
    if (!open) {
      const item: OutputItem = {
        id: newItemId('msg'),
        type: 'message',
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      open = { index: this.output.length, item, text: '' };
      this.message = open;
      this.output.push(item);
      this.send('response.output_item.added', { output_index: open.index, item: { ...item, content: [] } });
      this.send('response.content_part.added', {
        item_id: item.id,
        output_index: open.index,
        content_index: 0,
        part: textPart(''),
      });
    }
    open.text += delta;
    this.send('response.output_text.delta', {
      item_id: open.item.id,
      output_index: open.index,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  private closeMessage(): void {
    const open = this.message;
    if (!open) return;
    this.message = undefined;
    const part = textPart(open.text);
    const done: OutputItem = { ...open.item, status: 'completed', content: [part] };
    this.output[open.index] = done;
    const at = { item_id: done.id, output_index: open.index, content_index: 0 };
    this.send('response.output_text.done', { ...at, text: open.text, logprobs: [] });
    this.send('response.content_part.done', { ...at, part });
    this.send('response.output_item.done', { output_index: open.index, item: done });
  }

  private serverCallStarted(event: Extract<TurnEvent, { type: 'tool-call-start' }>): void {
    const item: OutputItem = {
      id: newItemId('mcp'),
      type: 'mcp_call',
      status: 'in_progress',
      server_label: event.toolType,
      name: event.toolCallName,
      arguments: event.arguments,
      output: null,
      error: null,
    };
    const index = this.output.length;
    this.output.push(item);
    this.running.set(event.toolCallId, index);
    this.send('response.output_item.added', { output_index: index, item });
    this.send('response.mcp_call.in_progress', { item_id: item.id, output_index: index });
  }

  private serverCallEnded(event: Extract<TurnEvent, { type: 'tool-call-result' }>): void {
    const index = this.running.get(event.toolCallId);
    if (index === undefined) return;
    this.running.delete(event.toolCallId);
    const item: OutputItem = {
      ...(this.output[index] as OutputItem),
      status: 'completed',
      output: event.content,
    };
    this.output[index] = item;
    this.send('response.mcp_call.completed', { item_id: item.id, output_index: index });
    this.send('response.output_item.done', { output_index: index, item });
  }

  private functionCall(call: ToolCallRequest): void {
    const index = this.output.length;
    const item: OutputItem = {
      id: newItemId('fc'),
      type: 'function_call',
      status: 'in_progress',
      call_id: call.id,
      name: call.name,
      arguments: '',
    };
    this.output.push(item);
    this.send('response.output_item.added', { output_index: index, item });
    this.send('response.function_call_arguments.delta', {
      item_id: item.id,
      output_index: index,
      delta: call.arguments,
    });
    this.send('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: index,
      name: call.name,
      arguments: call.arguments,
    });
    const done: OutputItem = { ...item, status: 'completed', arguments: call.arguments };
    this.output[index] = done;
    this.send('response.output_item.done', { output_index: index, item: done });
  }

  /** The turn ended: open items close, client tool calls become function_call items. */
  complete(output: { usage: Usage | undefined; toolCalls?: ToolCallRequest[] }): Record<string, unknown> {
    const calls = output.toolCalls ?? [];
    // A reply without any text still answers with a message, as clients look for one.
    if (calls.length === 0 && !this.output.some((item) => item.type === 'message')) this.text('');
    this.closeMessage();
    for (const call of calls) this.functionCall(call);
    this.usage = output.usage;
    return this.finish('completed', null, 'response.completed');
  }

  /** The turn failed or was cancelled: what was produced stays, and the stream ends with response.failed. */
  fail(status: 'failed' | 'cancelled', error: ResponseError): Record<string, unknown> {
    this.closeMessage();
    for (const index of this.running.values()) {
      const item = this.output[index] as OutputItem;
      this.output[index] = { ...item, status: 'incomplete' };
    }
    this.running.clear();
    return this.finish(status, error, 'response.failed');
  }

  private finish(
    status: ResponseStatus,
    error: ResponseError | null,
    event: string,
  ): Record<string, unknown> {
    this.status = status;
    this.error = error;
    this.completedAt = Math.floor(this.now() / 1000);
    const response = this.snapshot();
    this.send(event, { response });
    return response;
  }
}
