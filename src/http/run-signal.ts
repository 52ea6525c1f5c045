// The signal of a synchronous run started by a request: aborted when the client goes away or the
// time limit passes (the latter as a 504).
import type { FastifyReply } from 'fastify';
import { AppError } from '../core/errors.ts';
import { watchClient } from './disconnect.ts';

export function runSignal(reply: FastifyReply, timeoutMs: number): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new AppError('timeout', `the run did not finish within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const client = watchClient(reply, controller);
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      client.dispose();
    },
  };
}
