// The one server-sent-events writer: takes over the raw response after fastify has checked the
// request, writes `data: <json>` frames, and reports when the client goes away.
import type { FastifyReply } from 'fastify';
import { watchClient } from './disconnect.ts';

export class SseWriter {
  private closed = false;
  /** Aborts when the client goes away before the stream ended. */
  readonly signal: AbortSignal;

  constructor(private readonly reply: FastifyReply) {
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    reply.raw.flushHeaders();
    // A client that disconnects cancels the upstream call and the tool loop at once.
    this.signal = watchClient(reply).signal;
    reply.raw.once('close', () => {
      this.closed = true;
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(data: unknown): void {
    if (this.closed) return;
    this.reply.raw.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }

  /** Writes frames encoded elsewhere (AG-UI's encoder), as they are. */
  write(frames: string): void {
    if (this.closed) return;
    this.reply.raw.write(frames);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.reply.raw.end();
  }
}
