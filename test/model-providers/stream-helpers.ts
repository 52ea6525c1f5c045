import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/model-providers/types.ts';

/** Drains a provider stream into an array of events. */
export async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The streamed text of a list of events. */
export function textOf(events: ModelEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}

export function userRequest(content: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: '', messages: [{ role: 'user', content }], signal: new AbortController().signal, ...extra };
}

/** Runs a stream and returns what it threw (failing the test when it did not throw). */
export async function failureOf(
  provider: ModelProvider,
  request: ModelRequest,
): Promise<{ error: unknown; events: ModelEvent[] }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of provider.stream(request)) events.push(event);
  } catch (error) {
    return { error, events };
  }
  throw new Error(`expected the stream to fail, got ${JSON.stringify(events)}`);
}

/** Resolves like `promise`, or rejects when it takes longer than `ms` (so a broken test fails instead of hanging). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
