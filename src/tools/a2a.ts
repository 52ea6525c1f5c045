// A remote agent reached over A2A (JSON-RPC, @a2a-js/sdk client): the `a2a` agent tool. A call sends
// one streamed message, reports the remote's tool calls as they happen, and answers the remote's
// final text. When the caller stops (its signal aborts), the remote task is cancelled at once
// (CancelTask), so the remote turn ends too, not only our side of the stream.
import { randomUUID } from 'node:crypto';
import type { Client } from '@a2a-js/sdk/client';
import type { Message, Part } from '@a2a-js/sdk';
import { AppError, errorMessage } from '../core/errors.ts';

export interface A2ARemoteOptions {
  /** The remote agent card's URL (…/agent-card.json), or its endpoint (the card is then {url}/.well-known/agent-card.json). */
  url: string;
  /** Sent as Authorization: Bearer <apiKey> (card, messages and cancel). */
  apiKey?: string;
  /** Time allowed to fetch the card, in ms (default 10000). */
  connectTimeoutMs?: number;
}

/** A tool call the remote agent made, as its status updates report it (metadata.toolCall). */
export interface RemoteToolEvent {
  phase: 'start' | 'result';
  id: string;
  name: string;
  arguments?: string;
  content?: string;
}

export interface AskOptions {
  signal: AbortSignal;
  onToolEvent?: (event: RemoteToolEvent) => void;
  /** Status texts of the remote task ("calling tool x"), as they arrive. */
  onStatus?: (text: string) => void;
}

/** How long a cancel waits for a task id that has not arrived yet, and for the remote's answer. */
const CANCEL_WAIT_MS = 1000;
const STATE_COMPLETED = 3;
const STATE_FAILED = 4;
const STATE_CANCELED = 5;
const STATE_REJECTED = 7;

function textOf(parts: Part[] | undefined): string {
  return (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

function userMessage(text: string): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: 1,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function toolEventOf(metadata: Record<string, unknown> | undefined): RemoteToolEvent | undefined {
  const call = metadata?.['toolCall'] as Partial<RemoteToolEvent> | undefined;
  if (!call || typeof call.id !== 'string' || typeof call.name !== 'string') return undefined;
  if (call.phase !== 'start' && call.phase !== 'result') return undefined;
  return call as RemoteToolEvent;
}

export class A2ARemoteAgent {
  private client: Promise<Client> | undefined;

  constructor(private readonly options: A2ARemoteOptions) {
    const url = options.url;
    if (!/^https?:\/\//i.test(url))
      throw new AppError('invalid', 'tools: an a2a tool needs config.url (http or https)');
  }

  /** The remote's address for messages: origin and path, never a query string. */
  get label(): string {
    const url = new URL(this.options.url);
    return `${url.origin}${url.pathname}`;
  }

  private headers(): Record<string, string> {
    return this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {};
  }

  private connect(): Promise<Client> {
    if (!this.client) {
      this.client = this.open();
      this.client.catch(() => (this.client = undefined));
    }
    return this.client;
  }

  private async open(): Promise<Client> {
    const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } =
      await import('@a2a-js/sdk/client');
    const headers = this.headers();
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    const cardFetch: typeof fetch = (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), ...headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory()],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: cardFetch }),
    });
    const url = this.options.url;
    try {
      return url.endsWith('.json')
        ? await factory.createFromUrl(url, '')
        : await factory.createFromUrl(url.endsWith('/') ? url : `${url}/`);
    } catch (error) {
      throw new AppError('upstream', `A2A agent ${this.label} is unavailable: ${errorMessage(error)}`);
    }
  }

  /** Sends `input` as a new task and answers the remote's final text. */
  async ask(input: string, options: AskOptions): Promise<string> {
    const client = await this.connect();
    const { signal } = options;
    signal.throwIfAborted();
    const stream = new AbortController();
    const serviceParameters = this.headers();
    let taskId: string | undefined;
    let cancelled = false;
    const cancel = (): void => {
      if (cancelled || taskId === undefined) return;
      cancelled = true;
      void client
        .cancelTask(
          { tenant: '', id: taskId, metadata: undefined },
          { serviceParameters, signal: AbortSignal.timeout(CANCEL_WAIT_MS) },
        )
        .catch(() => undefined)
        .finally(() => stream.abort(signal.reason));
    };
    // A task id comes with the first event; until then a stop waits for it, at most CANCEL_WAIT_MS.
    let lastResort: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      cancel();
      lastResort = setTimeout(() => stream.abort(signal.reason), CANCEL_WAIT_MS);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let answer = '';
    let final = '';
    try {
      for await (const event of client.sendMessageStream(
        { tenant: '', message: userMessage(input), configuration: undefined, metadata: undefined },
        { signal: stream.signal, serviceParameters },
      )) {
        const payload = event.payload;
        if (!payload) continue;
        if (payload.$case === 'task') {
          taskId = payload.value.id;
          if (signal.aborted) cancel();
        } else if (payload.$case === 'message') {
          return textOf(payload.value.parts);
        } else if (payload.$case === 'artifactUpdate') {
          const text = textOf(payload.value.artifact?.parts);
          answer = payload.value.append ? answer + text : text;
        } else if (payload.$case === 'statusUpdate') {
          taskId ??= payload.value.taskId;
          const status = payload.value.status;
          const text = textOf(status?.message?.parts);
          const tool = toolEventOf(payload.value.metadata);
          if (tool) options.onToolEvent?.(tool);
          else if (text && status?.state !== STATE_COMPLETED) options.onStatus?.(text);
          if (status?.state === STATE_COMPLETED) final = text;
          if (status?.state === STATE_FAILED || status?.state === STATE_REJECTED)
            throw new AppError('upstream', `A2A agent ${this.label} failed: ${text || 'no reason given'}`);
          if (status?.state === STATE_CANCELED)
            throw new AppError('unavailable', `A2A agent ${this.label} cancelled the task`);
        }
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof AppError) throw error;
      throw new AppError('upstream', `A2A agent ${this.label} failed: ${errorMessage(error)}`);
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (lastResort) clearTimeout(lastResort);
    }
    signal.throwIfAborted();
    return answer || final;
  }
}
