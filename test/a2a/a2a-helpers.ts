// Shared by the A2A tests: an @a2a-js/sdk client with a Bearer key, and message builders.
import { randomUUID } from 'node:crypto';
import type { Message, SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';

export async function a2aClient(baseUrl: string, agentId: string, key: string): Promise<Client> {
  const authFetch: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}` },
    });
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
  });
  // The trailing slash: the card is {endpoint}/.well-known/agent-card.json.
  return factory.createFromUrl(`${baseUrl}/api/v1/a2a/${agentId}/`);
}

export function message(text: string, contextId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId,
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

export function send(text: string, contextId = ''): SendMessageRequest {
  return { tenant: '', message: message(text, contextId), configuration: undefined, metadata: undefined };
}

/** The text parts of a message or artifact, joined. */
export function textOf(parts: Message['parts'] | undefined): string {
  return (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

export function kinds(events: StreamResponse[]): string[] {
  return events.map((event) => event.payload?.$case ?? 'none');
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Fails instead of hanging when `promise` does not settle within `ms`. */
export async function within<T>(promise: Promise<T>, message: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
