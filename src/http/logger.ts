import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger as PinoLogger } from 'pino';

/**
 * Fields that may hold a secret; pino replaces them in a log line. Paths are explicit: wildcard
 * paths cost a third of the throughput of a small request, and no log line carries a body.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'password',
  'apiKey',
  'api_key',
  'token',
  'secret',
];

const QUERY_CREDENTIAL = /([?&](?:token|key|access_token|api_key)=)[^&#]*/giu;

/** A URL as logged: credentials in its query (the WebSocket API accepts ?token=) replaced. */
export function redactQueryCredentials(url: string): string {
  return url.includes('?') ? url.replace(QUERY_CREDENTIAL, '$1[redacted]') : url;
}

/** One line per request (method, url, status, time) instead of fastify's two. */
export class OneLineLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = {
      method: request.method,
      url: redactQueryCredentials(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request');
  }
}

/**
 * The text fastify's listen() logs is replaced by this marker and dropped: the server prints its own
 * single "listening" line (with the config and data paths) instead.
 */
export const LISTEN_MARK = '\u0000listening';

/**
 * The server's logger, made before any service: the services log through it (core/logger.ts) and
 * fastify writes its request lines to it. `silent` makes none (undefined). `base` replaces pino's
 * pid and hostname (clustered mode: the instance id).
 */
export function createLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  base?: Record<string, unknown>,
): PinoLogger | undefined {
  if (level === 'silent') return undefined;
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          if (args[0] === LISTEN_MARK) return;
          method.apply(this, args);
        },
      },
      ...(base ? { base } : {}),
    },
    destination ?? process.stdout,
  );
}
