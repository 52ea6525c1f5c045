// GET /logs/server: the server's recent log lines from its in-memory ring; with follow=true an SSE
// stream of the recent lines followed by each new one (`data: <line JSON>` frames).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AsyncQueue } from '../../core/async.ts';
import { LEVELS } from '../../http/log-levels.ts';
import type { LogLine, LogRing } from '../../http/log-ring.ts';
import { dataFrame, pipeSse } from '../../http/sse.ts';
import { serverLogAnswer, serverLogQuery } from './server-logs.schema.ts';

/** Keeps a quiet follow stream alive through proxies that drop idle connections. */
const HEARTBEAT_MS = 15_000;
const KEEP_ALIVE = Symbol('keep-alive');
type FollowItem = LogLine | typeof KEEP_ALIVE;

export function registerServerLogRoutes(app: FastifyInstance, ring: LogRing, file: string | undefined): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const streams = new Set<AsyncQueue<FollowItem>>();
  // Followers never end on their own: closing the server ends them so it can stop.
  app.addHook('onClose', async () => {
    for (const stream of streams) stream.close();
  });
  api.get(
    '/logs/server',
    {
      schema: {
        tags: ['logs'],
        summary: "The server's recent log lines; follow=true streams new ones (text/event-stream)",
        querystring: serverLogQuery,
        response: { 200: serverLogAnswer },
      },
    },
    async (request, reply) => {
      const { level, limit, after, follow } = request.query;
      const lines = ring.recent({
        limit,
        ...(level ? { level } : {}),
        ...(after !== undefined ? { after } : {}),
      });
      if (!follow) return { data: lines, capacity: ring.capacity, file: file ?? null };
      const stream = new AsyncQueue<FollowItem>();
      for (const line of lines) stream.push(line);
      const min = LEVELS[level ?? 'trace'];
      const stop = ring.follow((line) => {
        if (LEVELS[line.level] >= min) stream.push(line);
      });
      const heartbeat = setInterval(() => stream.push(KEEP_ALIVE), HEARTBEAT_MS);
      heartbeat.unref();
      streams.add(stream);
      const end = (): void => {
        stop();
        clearInterval(heartbeat);
        streams.delete(stream);
        stream.close();
      };
      const followed = (signal: AbortSignal): AsyncIterable<FollowItem> => {
        signal.addEventListener('abort', end, { once: true });
        return stream;
      };
      await pipeSse(reply, followed, {
        frame: (item) => (item === KEEP_ALIVE ? ': keep-alive\n\n' : dataFrame(item)),
      }).finally(end);
      return reply;
    },
  );
}
