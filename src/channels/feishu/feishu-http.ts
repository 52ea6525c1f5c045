// The transport of the Feishu / Lark open API, over fetch: the tenant access token (cached per app
// until shortly before it expires, one request for it at a time), JSON calls that must answer
// code 0, a retry with a new token when Feishu says the old one is invalid and one after a short
// rate-limit wait. Every answer is read with a size cap, redirects are refused (the token must not
// reach another origin), and no error message carries the app secret or a token.
import { createHash } from 'node:crypto';
import { sleep } from '../../core/async.ts';
import { PlatformError, platformFailure, platformFetch, type PlatformResponse } from '../platform-http.ts';

/** The largest JSON answer read; anything bigger is refused unread. */
const MAX_REPLY_BYTES = 4 * 1024 * 1024;
/** Error codes of a token that is missing, invalid or expired: fetch a new one and try once more. */
const TOKEN_CODES = new Set([99991661, 99991663, 99991668, 99991677]);
/** A token is renewed this long before Feishu says it expires. */
const TOKEN_MARGIN_MS = 5 * 60_000;

export interface FeishuCredentials {
  /** Origin (and optional path prefix) of the API, without a trailing slash. */
  apiBase: string;
  appId: string;
  appSecret: string;
}

/** One key per app and secret, so a changed secret never reuses the old one's token. */
export function credentialsKey(credentials: FeishuCredentials): string {
  const secret = createHash('sha256').update(credentials.appSecret).digest('base64url');
  return `${credentials.apiBase}\u0000${credentials.appId}\u0000${secret}`;
}

export interface FeishuHttpOptions {
  /** Time limit of one call, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** A call answered 429 is retried once when Feishu asks to wait at most this long, in ms (default 5000). */
  maxRetryWaitMs?: number;
  now?: () => number;
}

interface CallOptions {
  method?: 'GET' | 'POST' | 'PATCH';
  query?: Record<string, string>;
  json?: unknown;
  /** Built again for a retry: a FormData body is consumed by a send. */
  form?: () => FormData;
  signal?: AbortSignal | undefined;
  /** Sends the tenant token (default true). */
  auth?: boolean;
  /** Largest answer read, in bytes (default 4 MiB). */
  maxBytes?: number;
}

export interface Answer {
  code?: unknown;
  msg?: unknown;
  data?: Record<string, unknown>;
  [field: string]: unknown;
}

export class FeishuHttp {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();
  private readonly pendingTokens = new Map<string, Promise<string>>();
  private readonly now: () => number;

  constructor(private readonly options: FeishuHttpOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** The app's tenant_access_token, from the cache while it has more than a few minutes left. */
  async tenantToken(credentials: FeishuCredentials): Promise<string> {
    const key = credentialsKey(credentials);
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.token;
    const pending = this.pendingTokens.get(key);
    if (pending) return pending;
    // Not tied to any one caller's signal: callers waiting on the same request share it.
    const request = this.call(
      credentials,
      'tenant_access_token',
      '/open-apis/auth/v3/tenant_access_token/internal',
      {
        auth: false,
        json: { app_id: credentials.appId, app_secret: credentials.appSecret },
      },
    )
      .then((answer) => {
        const token = answer['tenant_access_token'];
        const expire = Number(answer['expire'] ?? 0);
        if (typeof token !== 'string' || token === '') {
          throw new PlatformError('feishu tenant_access_token: the answer carries no token');
        }
        const lifetimeMs = Number.isFinite(expire) && expire > 0 ? expire * 1000 : 60 * 60_000;
        const now = this.now();
        for (const [other, entry] of this.tokens) if (entry.expiresAt <= now) this.tokens.delete(other);
        this.tokens.set(key, {
          token,
          expiresAt: now + Math.max(lifetimeMs - TOKEN_MARGIN_MS, lifetimeMs / 2),
        });
        return token;
      })
      .finally(() => this.pendingTokens.delete(key));
    this.pendingTokens.set(key, request);
    return request;
  }

  /** One JSON call; its answer has code 0. */
  async call(
    credentials: FeishuCredentials,
    what: string,
    path: string,
    options: CallOptions,
  ): Promise<Answer> {
    const { answer, response } = await this.send(credentials, what, path, options);
    if (answer) return answer;
    throw new PlatformError(
      `feishu ${what}: the API sent an answer that is not JSON (status ${response.status})`,
    );
  }

  /**
   * Sends a request. A JSON answer is read and must have code 0; any other successful answer (a
   * file) is returned unread. A token error is retried once with a new token, a 429 once after the
   * wait Feishu asks for when that is short.
   */
  async send(
    credentials: FeishuCredentials,
    what: string,
    path: string,
    options: CallOptions,
  ): Promise<{ answer?: Answer; response: PlatformResponse }> {
    for (let attempt = 1; ; attempt++) {
      const token = options.auth === false ? undefined : await this.tenantToken(credentials);
      const response = await this.fetch(credentials, what, path, options, token);
      const isJson = (response.headers.get('content-type') ?? '').includes('json');
      if (response.ok && !isJson) return { response };
      // A proxy's error page is no answer of Feishu's; a 429 is retried whatever its body.
      const answer: Answer = isJson ? response.json() : { msg: 'an answer that is not JSON' };
      const code = typeof answer.code === 'number' ? answer.code : response.ok ? 0 : response.status;
      if (response.ok && code === 0) return { answer, response };
      if (attempt === 1 && token !== undefined && TOKEN_CODES.has(code)) {
        this.tokens.delete(credentialsKey(credentials));
        continue;
      }
      const retryAfterMs = feishuRetryAfter(response);
      if (
        attempt === 1 &&
        retryAfterMs !== undefined &&
        retryAfterMs <= (this.options.maxRetryWaitMs ?? 5000)
      ) {
        await sleep(retryAfterMs, options.signal);
        continue;
      }
      throw this.failure(credentials, what, response.status, answer, retryAfterMs);
    }
  }

  private fetch(
    credentials: FeishuCredentials,
    what: string,
    path: string,
    options: CallOptions,
    token: string | undefined,
  ): Promise<PlatformResponse> {
    const url = new URL(`${credentials.apiBase}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    return platformFetch({
      what: `feishu ${what}`,
      url,
      method: options.method ?? 'POST',
      ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
      ...(options.form ? { body: options.form() } : options.json !== undefined ? { json: options.json } : {}),
      signal: options.signal,
      timeoutMs: this.options.requestTimeoutMs ?? 30_000,
      maxBytes: options.maxBytes ?? MAX_REPLY_BYTES,
      secrets: [credentials.appSecret, token],
    });
  }

  private failure(
    credentials: FeishuCredentials,
    what: string,
    status: number,
    answer: Answer,
    retryAfterMs: number | undefined,
  ): PlatformError {
    const cached = this.tokens.get(credentialsKey(credentials))?.token;
    return platformFailure(`feishu ${what}`, {
      status,
      code: typeof answer.code === 'number' ? answer.code : undefined,
      message: String(answer.msg ?? 'no message'),
      secrets: [credentials.appSecret, cached],
      retryAfterMs,
    });
  }
}

/** Feishu's wait after a rate limit, from x-ogw-ratelimit-reset (seconds) or Retry-After. */
function feishuRetryAfter(response: PlatformResponse): number | undefined {
  if (response.status !== 429) return undefined;
  const reset = Number(response.headers.get('x-ogw-ratelimit-reset') ?? Number.NaN);
  if (Number.isFinite(reset) && reset >= 0) return reset * 1000;
  return response.retryAfterMs ?? 1000;
}
