// The transport of the Feishu / Lark open API, over fetch: the tenant access token (cached per app
// until shortly before it expires, one request for it at a time), JSON calls that must answer
// code 0, a retry with a new token when Feishu says the old one is invalid and one after a short
// rate-limit wait. Every answer is read with a size cap, redirects are refused (the token must not
// reach another origin), and no error message carries the app secret or a token.
import { createHash } from 'node:crypto';
import { sleep } from '../../core/async.ts';
import { AppError } from '../../core/errors.ts';
import { readCapped } from '../../core/read-capped.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';

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

/** A failed API call; its message never contains a credential. */
export class FeishuError extends AppError {
  constructor(
    message: string,
    readonly code?: number,
    /** The reconnect loop's hint (see channels/reconnect.ts). */
    readonly retryAfterMs?: number,
  ) {
    super('upstream', message);
  }
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
          throw new FeishuError('feishu tenant_access_token: the answer carries no token');
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
    await response.body?.cancel().catch(() => undefined);
    throw new FeishuError(
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
  ): Promise<{ answer?: Answer; response: Response }> {
    for (let attempt = 1; ; attempt++) {
      const token = options.auth === false ? undefined : await this.tenantToken(credentials);
      const response = await this.fetch(credentials, what, path, options, token);
      const isJson = (response.headers.get('content-type') ?? '').includes('json');
      if (response.ok && !isJson) return { response };
      // A proxy's error page is no answer of Feishu's; a 429 is retried whatever its body.
      let answer: Answer = { msg: 'an answer that is not JSON' };
      if (isJson) answer = await this.parseAnswer(what, response);
      else await response.body?.cancel().catch(() => undefined);
      const code = typeof answer.code === 'number' ? answer.code : response.ok ? 0 : response.status;
      if (response.ok && code === 0) return { answer, response };
      if (attempt === 1 && token !== undefined && TOKEN_CODES.has(code)) {
        this.tokens.delete(credentialsKey(credentials));
        continue;
      }
      const retryAfterMs = retryAfterOf(response);
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

  private async fetch(
    credentials: FeishuCredentials,
    what: string,
    path: string,
    options: CallOptions,
    token: string | undefined,
  ): Promise<Response> {
    const url = new URL(`${credentials.apiBase}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = {};
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    let body: string | FormData | undefined;
    if (options.form) body = options.form();
    else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json; charset=utf-8';
    }
    const timeout = AbortSignal.timeout(this.options.requestTimeoutMs ?? 30_000);
    try {
      return await fetch(url, {
        method: options.method ?? 'POST',
        headers,
        redirect: 'error',
        ...(body !== undefined ? { body } : {}),
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const cause = (error as { cause?: { code?: unknown } }).cause;
      // Only a code or a fixed phrase: the transport's own text can quote the request.
      const detail =
        typeof cause?.code === 'string' && /^[A-Z_0-9]{2,40}$/.test(cause.code)
          ? cause.code
          : (error as Error).name === 'TimeoutError'
            ? 'timed out'
            : 'request failed';
      throw new FeishuError(`feishu ${what}: could not reach the API (${detail})`);
    }
  }

  private async parseAnswer(what: string, response: Response): Promise<Answer> {
    try {
      const parsed: unknown = JSON.parse(await readCapped(response, MAX_REPLY_BYTES));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Answer) : {};
    } catch (error) {
      const why = error instanceof AppError ? error.message : 'an answer that is not JSON';
      throw new FeishuError(`feishu ${what}: the API sent ${why} (status ${response.status})`);
    }
  }

  private failure(
    credentials: FeishuCredentials,
    what: string,
    status: number,
    answer: Answer,
    retryAfterMs: number | undefined,
  ): FeishuError {
    const code = typeof answer.code === 'number' ? answer.code : undefined;
    const cached = this.tokens.get(credentialsKey(credentials))?.token;
    const message = scrubSecrets(String(answer.msg ?? 'no message'), [credentials.appSecret, cached]).slice(
      0,
      300,
    );
    return new FeishuError(
      `feishu ${what} failed (status ${status}${code !== undefined ? `, code ${code}` : ''}): ${message}`,
      code,
      retryAfterMs,
    );
  }
}

/** Feishu's wait after a rate limit, from x-ogw-ratelimit-reset (seconds) or Retry-After. */
function retryAfterOf(response: Response): number | undefined {
  if (response.status !== 429) return undefined;
  const header = response.headers.get('x-ogw-ratelimit-reset') ?? response.headers.get('retry-after');
  const seconds = Number(header ?? 1);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
}
