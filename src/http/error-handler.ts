// The only place that turns errors into HTTP responses: {"error": "<one clear sentence>"}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isAppError } from '../core/errors.ts';

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

/** zod's standard texts ("Too small: expected string to have >=1 characters") said in words. */
const WORDINGS: Array<[RegExp, (...groups: string[]) => string]> = [
  [/^Too small: expected string to have >=1 characters?$/, () => 'must not be empty'],
  [/^Too small: expected string to have >=(\d+) characters$/, (n) => `must be at least ${n} characters long`],
  [/^Too big: expected string to have <=(\d+) characters$/, (n) => `must be at most ${n} characters long`],
  [/^Too small: expected array to have >=1 items?$/, () => 'must not be empty'],
  [/^Too small: expected array to have >=(\d+) items$/, (n) => `must have at least ${n} items`],
  [/^Too big: expected array to have <=(\d+) items$/, (n) => `must have at most ${n} items`],
  [/^Too small: expected number to be >=(\S+)$/, (n) => `must be at least ${n}`],
  [/^Too small: expected number to be >(\S+)$/, (n) => `must be more than ${n}`],
  [/^Too big: expected number to be <=(\S+)$/, (n) => `must be at most ${n}`],
  [/^Too big: expected number to be <(\S+)$/, (n) => `must be less than ${n}`],
  [/^Invalid option: expected one of (.+)$/, (list) => `must be one of ${list.split('|').join(', ')}`],
  [/^Invalid input: expected (\w+), received (\w+)$/, (want, got) => `must be ${article(want)} (got ${got})`],
  [/^Invalid input: expected (\w+)$/, (want) => `must be ${article(want)}`],
  [
    /^Unrecognized keys?: (.+)$/,
    (keys) => `${keys} ${keys.includes(',') ? 'are not known fields' : 'is not a known field'}`,
  ],
];

function article(type: string): string {
  const noun = type === 'int' ? 'whole number' : type;
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function inWords(message: string): string {
  for (const [pattern, say] of WORDINGS) {
    const match = pattern.exec(message);
    if (match) return say(...match.slice(1));
  }
  return message.replace(/^Invalid input: /, '');
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

export function installErrorHandler(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isAppError(error)) {
      if (error.status >= 500) request.log.warn({ kind: error.kind, err: error.cause }, error.message);
      if (error.kind === 'rate-limited' && !reply.hasHeader('retry-after')) reply.header('retry-after', '60');
      return sendError(reply, error.status, error.message);
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
