// The one way a route learns that its client went away: the response closes before it finished.
// Chat turns (streamed or not) and chain runs pass the signal on, so the model call, the tool loop
// and the chain stop at once.
import type { FastifyReply } from 'fastify';
import { AppError } from '../core/errors.ts';

export interface ClientWatch {
  /** Aborts with an `unavailable` AppError ("client disconnected") when the client goes away. */
  readonly signal: AbortSignal;
  /** Stops watching (the route finished). */
  dispose(): void;
}

/** Watches `reply` for a client that leaves early; aborts `controller` (a new one by default). */
export function watchClient(reply: FastifyReply, controller = new AbortController()): ClientWatch {
  const onClose = (): void => {
    if (!reply.raw.writableFinished) controller.abort(new AppError('unavailable', 'client disconnected'));
  };
  reply.raw.once('close', onClose);
  return {
    signal: controller.signal,
    dispose: () => reply.raw.off('close', onClose),
  };
}
