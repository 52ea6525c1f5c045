// Messages between the main thread and a model worker (model-worker.ts, started by
// model-threads.ts). A provider is defined on a worker once, under a key, before its first call.
import type { ErrorKind } from '../core/errors.ts';
import type { OpenAICompatibleOptions } from './openai-compatible.ts';
import type { ModelEvent, ModelRequest } from './types.ts';

/** What a worker needs to build a provider: everything but an in-process fetch. */
export type WorkerProviderOptions = Omit<OpenAICompatibleOptions, 'fetch'>;

/** A model request without its signal, which cannot cross threads (`cancel` stands for it). */
export type WorkerModelRequest = Omit<ModelRequest, 'signal' | 'caller'>;

export type ToModelWorker =
  | { type: 'define'; key: number; options: WorkerProviderOptions }
  | { type: 'forget'; key: number }
  | { type: 'call'; id: number; key: number; request: WorkerModelRequest }
  | { type: 'cancel'; id: number };

export type FromModelWorker =
  /** Events of a call, in order; `done` marks the last message of a call that finished. */
  | { type: 'events'; id: number; events: ModelEvent[]; done: boolean }
  | { type: 'error'; id: number; kind: ErrorKind; message: string };
