import type { FastifyServerOptions } from 'fastify';

/** Fields that may hold a secret; pino replaces them wherever they appear in a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.oldPassword',
  '*.newPassword',
  '*.api_key',
  '*.apiKey',
  '*.app_secret',
  '*.token',
  '*.jwtSecret',
  'body.password',
  'body.api_key',
  'body.apiKey',
];

export function loggerOptions(level: string, destination?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    ...(destination ? { stream: destination } : {}),
  };
}
