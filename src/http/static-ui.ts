// The web UI under /ui/. Its three files are read once, here, and served from memory: a fixed
// allow-list keyed by name, so no part of a request path ever reaches the file system.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthPolicy } from './auth-hook.ts';
import { sendError } from './error-handler.ts';

const CONTENT_TYPES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
} as const;

type UiFileName = keyof typeof CONTENT_TYPES;

interface UiFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** Only our own files may run or load; model output is rendered as text, and this is the backstop. */
export const UI_CONTENT_SECURITY_POLICY =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'";

const NOT_FOUND = 'not found: the web UI has only index.html, app.js and style.css';

// The page is static and public; every API call it makes carries the user's token.
const PUBLIC: { auth: AuthPolicy } = { auth: 'public' };

function loadFiles(webDir: string): Map<string, UiFile> {
  const files = new Map<string, UiFile>();
  for (const name of Object.keys(CONTENT_TYPES) as UiFileName[]) {
    const body = readFileSync(join(webDir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    files.set(name, { body, contentType: CONTENT_TYPES[name], etag });
  }
  return files;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', UI_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff');
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: UiFile): FastifyReply {
  // no-cache plus an ETag: the browser always asks, and an unchanged file costs only a 304.
  securityHeaders(reply).header('cache-control', 'no-cache').header('etag', file.etag);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.type(file.contentType).send(file.body);
}

export function registerStaticUi(app: FastifyInstance, webDir: string): void {
  const files = loadFiles(webDir);
  const index = files.get('index.html');
  if (!index) throw new Error('web UI: index.html was not loaded');

  app.get('/', { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/ui/', 302),
  );
  app.get('/ui', { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/ui/', 302),
  );
  app.get('/ui/', { config: PUBLIC, schema: { hide: true } }, async (request, reply) =>
    sendFile(request, reply, index),
  );
  // A wildcard rather than /ui/:file, so nested and encoded paths also get this 404 and never fall through.
  app.get('/ui/*', { config: PUBLIC, schema: { hide: true } }, async (request, reply) => {
    const name = (request.params as { '*'?: string })['*'] ?? '';
    const file = files.get(name);
    if (!file) return sendError(securityHeaders(reply), 404, NOT_FOUND);
    return sendFile(request, reply, file);
  });
}
