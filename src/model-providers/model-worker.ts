// A model worker: runs OpenAI-compatible provider calls (the openai SDK, its HTTP request and the
// parsing of its stream) off the main thread, which then only handles requests and agent turns.
// Events of a call are gathered for the rest of an event-loop turn and posted together, so a short
// answer crosses threads in one or two messages. Pieces of text that arrive in the same turn are
// joined into one: on the main thread every event passes the usage meter, the observability, the
// agent loop and the turn's fold, each an async iterator, and a streamed client gets one frame
// instead of several written in the same moment. Text that arrives over time (a model generating)
// still crosses piece by piece.
import { parentPort } from 'node:worker_threads';
import { AppError } from '../core/errors.ts';
import type { FromModelWorker, ToModelWorker, WorkerModelRequest } from './model-worker-protocol.ts';
import { createOpenAICompatibleProvider } from './openai-compatible.ts';
import type { ModelEvent, ModelProvider } from './types.ts';

const port = parentPort;
if (!port) throw new Error('model-worker.ts runs as a worker thread');

const providers = new Map<number, ModelProvider>();
const running = new Map<number, AbortController>();

const post = (message: FromModelWorker): void => port.postMessage(message);

port.on('message', (message: ToModelWorker) => {
  switch (message.type) {
    case 'define':
      providers.set(message.key, createOpenAICompatibleProvider(message.options));
      return;
    case 'forget':
      providers.delete(message.key);
      return;
    case 'call':
      void call(message.id, message.key, message.request);
      return;
    case 'cancel':
      running.get(message.id)?.abort(new Error('cancelled'));
      running.delete(message.id);
  }
});

async function call(id: number, key: number, request: WorkerModelRequest): Promise<void> {
  const provider = providers.get(key);
  if (!provider) {
    post({ type: 'error', id, kind: 'upstream', message: 'the model provider is not defined on its worker' });
    return;
  }
  const controller = new AbortController();
  running.set(id, controller);
  let batch: ModelEvent[] = [];
  let flushing = false;
  const flush = (): void => {
    flushing = false;
    if (batch.length === 0 || !running.has(id)) return;
    post({ type: 'events', id, events: batch, done: false });
    batch = [];
  };
  try {
    for await (const event of provider.stream({ ...request, signal: controller.signal })) {
      const last = batch.at(-1);
      if (event.type === 'text-delta' && last?.type === 'text-delta') {
        batch[batch.length - 1] = { type: 'text-delta', text: last.text + event.text };
      } else batch.push(event);
      if (!flushing) {
        flushing = true;
        setImmediate(flush);
      }
    }
    if (running.has(id)) post({ type: 'events', id, events: batch, done: true });
    batch = [];
  } catch (error) {
    // A cancelled call has nobody waiting for it.
    if (!running.has(id)) return;
    // Events streamed before the error come first, as they would in-process.
    if (batch.length > 0) post({ type: 'events', id, events: batch, done: false });
    batch = [];
    const failure =
      error instanceof AppError
        ? error
        : new AppError('upstream', `model provider "${provider.id}" failed unexpectedly`);
    post({ type: 'error', id, kind: failure.kind, message: failure.message });
  } finally {
    running.delete(id);
  }
}
