// The one server-sent-events writer. A route hands it a stream (an async iterable) and the wire's
// encoder; it takes over the raw response after fastify has checked the request, writes each item
// as its frames (waiting for `drain` when the socket is full), aborts the stream's signal when the
// client goes away, and ends a failed stream with the wire's error event.
import type { FastifyReply } from 'fastify';
import { DISK_FULL_MESSAGE, isDiskFull } from '../core/disk-space.ts';
import { errorMessage, isAppError } from '../core/errors.ts';
import { DATABASE_UNREACHABLE_MESSAGE, isDatabaseUnreachable } from '../storage/database-unreachable.ts';
import { watchClient } from './disconnect.ts';

export interface SseEncoder<T> {
  /** One item as its frames: `data: ...\n\n`, with an `event:` line first where the wire names events. */
  frame(item: T): string;
  /** The frames that tell the client the stream failed; absent when the stream reports its own failures. */
  error?(error: unknown): string;
}

/** A `data:` frame: JSON, or a string as it is (`[DONE]`). */
export function dataFrame(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/**
 * What a client is told of a failure: an AppError's message, or what the error handler would say
 * of a full disk or an unreachable database; our own faults stay in the log.
 */
export function publicMessage(error: unknown): string {
  if (isAppError(error)) return error.message;
  if (isDiskFull(error)) return DISK_FULL_MESSAGE;
  if (isDatabaseUnreachable(error)) return DATABASE_UNREACHABLE_MESSAGE;
  return 'internal error';
}

type RawResponse = FastifyReply['raw'];

function writeFrames(raw: RawResponse, frames: string): Promise<void> | undefined {
  if (frames === '' || raw.write(frames)) return undefined;
  return new Promise((resolve) => {
    const done = (): void => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.once('drain', done);
    raw.once('close', done);
  });
}

/**
 * Streams `produce(signal)` to the client. The stream is made from the signal (rather than passed
 * in) so that a client going away aborts the work behind it at once, even while it waits on a
 * model. After the client left, the stream is still read to its end, unwritten, so that its
 * producer finishes its bookkeeping (history, stored responses) as it would have.
 */
export async function pipeSse<T>(
  reply: FastifyReply,
  produce: (signal: AbortSignal) => AsyncIterable<T>,
  encoder: SseEncoder<T>,
): Promise<void> {
  const raw = reply.raw;
  const client = watchClient(reply);
  let open = true;
  raw.once('close', () => {
    open = false;
  });
  reply.hijack();
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  try {
    for await (const item of produce(client.signal)) {
      if (open) await writeFrames(raw, encoder.frame(item));
    }
  } catch (error) {
    if (open && !isAppError(error)) reply.log.error({ err: error }, 'stream failed');
    else reply.log.debug({ reason: errorMessage(error) }, 'stream ended early');
    if (open && encoder.error) await writeFrames(raw, encoder.error(error));
  } finally {
    client.dispose();
    if (!raw.writableEnded) raw.end();
  }
}
