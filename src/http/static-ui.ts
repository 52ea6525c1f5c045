// The web UI under /ui/: the Vite build in <web>/dist, read once (on the first /ui request, so a server
// only used through its API never holds the bundle) and served from memory. The allow-list is the set
// of files found then, keyed by their relative path, so no part of a request path ever reaches the
// file system. Client routes (/ui/chat/main, ...) get index.html.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthPolicy } from './auth-hook.ts';
import { sendError } from './error-handler.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface UiFile {
  body: Buffer;
  contentType: string;
  etag: string;
  /** Hashed build assets never change under their name: cached for a year. */
  immutable: boolean;
}

/**
 * Only our own files may run or load. Model output is sanitized Markdown, and this is the backstop.
 * img-src allows data: for the pictures a user attaches (they are sent and shown as data: URLs).
 */
export const UI_CONTENT_SECURITY_POLICY =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const UI_NOT_FOUND = 'not found: no such file in the web UI';
export const UI_NOT_BUILT =
  'the web UI is not built: run `npm run build` (or `npm install`) in the server folder, then restart';

// A client route is any path but a build asset's: it gets index.html, and the UI shows the page or its
// own not-found page. Session keys (agent:main:channel:cron:...) and other ids may hold any character.
// A missing asset (under assets/, or a name with a file extension we serve) is a 404.
// Names that try to leave the folder (a "." or ".." segment, a backslash, a NUL) are a 404 too.
function isClientRoute(name: string): boolean {
  if (name.startsWith('assets/') || Object.hasOwn(CONTENT_TYPES, extname(name))) return false;
  return !/[\\\0]/.test(name) && !name.split('/').some((segment) => segment === '.' || segment === '..');
}

// The page is static and public; every API call it makes carries the user's token.
const PUBLIC: { auth: AuthPolicy } = { auth: 'public' };

function listFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    const stats = statSync(path);
    if (stats.isDirectory()) return listFiles(path);
    return stats.isFile() ? [path] : [];
  });
}

function isBuilt(buildDir: string): boolean {
  try {
    return statSync(join(buildDir, 'index.html')).isFile();
  } catch {
    return false;
  }
}

/** The built files by path relative to the build folder (`index.html`, `assets/index-3f2a.js`). */
export function loadUiFiles(buildDir: string): Map<string, UiFile> | undefined {
  let paths: string[];
  try {
    if (!isBuilt(buildDir)) return undefined;
    paths = listFiles(buildDir);
  } catch {
    return undefined;
  }
  const files = new Map<string, UiFile>();
  for (const path of paths) {
    const contentType = CONTENT_TYPES[extname(path)];
    if (!contentType) continue;
    const name = relative(buildDir, path).split(sep).join('/');
    const body = readFileSync(path);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    files.set(name, { body, contentType, etag, immutable: name.startsWith('assets/') });
  }
  return files;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', UI_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: UiFile): FastifyReply {
  // index.html: no-cache plus an ETag, so a new build shows at once and an unchanged page costs a 304.
  const cache = file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache';
  securityHeaders(reply).header('cache-control', cache).header('etag', file.etag);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.type(file.contentType).send(file.body);
}

/**
 * Serves `<webDir>/dist`. Without a build the API still runs, and every UI path answers 503 saying
 * how to build it (`onMissing` is told once, at registration, so the server can log it).
 */
export function registerStaticUi(
  app: FastifyInstance,
  webDir: string,
  onMissing: (message: string) => void = (message) => app.log.warn(message),
): void {
  const buildDir = join(webDir, 'dist');
  const built = isBuilt(buildDir);
  if (!built) onMissing(UI_NOT_BUILT);
  let loaded: { files: Map<string, UiFile> | undefined } | undefined;

  const serve = (request: FastifyRequest, reply: FastifyReply, name: string): FastifyReply => {
    loaded ??= { files: built ? loadUiFiles(buildDir) : undefined };
    const files = loaded.files;
    const index = files?.get('index.html');
    if (!files || !index) return sendError(securityHeaders(reply), 503, UI_NOT_BUILT);
    // Map.get with an own-key map: names like __proto__ or constructor are simply absent.
    const file = files.get(name) ?? (isClientRoute(name) ? index : undefined);
    if (!file) return sendError(securityHeaders(reply), 404, UI_NOT_FOUND);
    return sendFile(request, reply, file);
  };

  app.get('/', { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/ui/', 302),
  );
  app.get('/ui', { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/ui/', 302),
  );
  app.get('/ui/', { config: PUBLIC, schema: { hide: true } }, async (request, reply) =>
    serve(request, reply, 'index.html'),
  );
  // A wildcard rather than /ui/:file, so nested and encoded paths also end here and never fall through.
  app.get('/ui/*', { config: PUBLIC, schema: { hide: true } }, async (request, reply) =>
    serve(request, reply, (request.params as { '*'?: string })['*'] ?? ''),
  );
}
