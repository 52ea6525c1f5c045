// The only place that turns errors into HTTP responses: {"error": "<one clear sentence>"}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DISK_FULL_MESSAGE, isDiskFull } from '../core/disk-space.ts';
import { isAppError } from '../core/errors.ts';
import { DATABASE_UNREACHABLE_MESSAGE, isDatabaseUnreachable } from '../storage/database-unreachable.ts';
import { inWords } from '../core/zod-words.ts';

const PART_NAMES: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function validationMessage(
  error: FastifyError & { validation: Array<{ instancePath: string; message?: string }> },
): string {
  const part = PART_NAMES[error.validationContext ?? 'body'] ?? 'body';
  const first = error.validation[0];
  const field = first?.instancePath.replace(/^\//, '').replaceAll('/', '.') ?? '';
  const message = inWords(first?.message ?? 'is invalid');
  return field ? `${part}.${field}: ${message}` : `${part}: ${message}`;
}

function clientErrorMessage(error: FastifyError, limit: number): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'request body is not valid JSON';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'request body is empty; send a JSON object';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `request body is too large (limit ${limit} bytes)`;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported content type; send application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'request body length does not match Content-Length';
    default:
      if (error instanceof SyntaxError) return 'request body is not valid JSON';
      return error.message;
  }
}

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error: message });
}

/** Told of a write refused for want of disk space (GET /ready then says not ready until space is back). */
export type DiskFullListener = (error: unknown) => void;

export function installErrorHandler(
  app: FastifyInstance,
  bodyLimit: number,
  onDiskFull: DiskFullListener = () => undefined,
): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A write refused for want of space (a file or the database): 507, nothing was written.
    if (isDiskFull(error) && !(isAppError(error) && error.status < 500)) {
      onDiskFull(error);
      request.log.warn({ err: error }, DISK_FULL_MESSAGE);
      return sendError(reply, 507, DISK_FULL_MESSAGE);
    }
    if (isAppError(error)) {
      if (error.status >= 500) request.log.warn({ kind: error.kind, err: error.cause }, error.message);
      if (error.kind === 'rate-limited' && !reply.hasHeader('retry-after')) reply.header('retry-after', '60');
      return sendError(reply, error.status, error.message);
    }
    if (isDatabaseUnreachable(error)) {
      request.log.warn({ err: error }, DATABASE_UNREACHABLE_MESSAGE);
      return sendError(reply, 503, DATABASE_UNREACHABLE_MESSAGE);
    }
    if (hasZodFastifySchemaValidationErrors(error)) return sendError(reply, 400, validationMessage(error));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendError(reply, status, clientErrorMessage(error, bodyLimit));
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, 500, 'internal error');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `no route for ${request.method} ${request.url.split('?')[0]}`),
  );
}
