// DingTalk's HTTP APIs for one adapter: the app access token (POST /v1.0/oauth2/accessToken, cached
// per account until shortly before it expires), JSON calls to the new API with the token in the
// x-acs-dingtalk-access-token header, the old API's media upload (token in the query), and posts to
// a message's sessionWebhook. Every failure is a DingTalkError whose message never contains the app
// secret, a token or a ticket; redirects are refused so the token never reaches another origin.
import { digest } from '../../core/secrets.ts';
import { AppError } from '../../core/errors.ts';
import { readCapped } from '../../core/read-capped.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import type { ChannelAccount } from '../types.ts';
import type { DingTalkAccount } from './account.ts';

export const DINGTALK_API_BASE = 'https://api.dingtalk.com';
export const DINGTALK_OAPI_BASE = 'https://oapi.dingtalk.com';
/** The largest JSON answer read; anything bigger is refused unread. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** A failed DingTalk call (kind `upstream`); its message is safe to show and log. */
export class DingTalkError extends AppError {
  constructor(
    message: string,
    readonly httpStatus?: number,
    readonly code?: string,
    /** The reconnect loop's hint (see channels/reconnect.ts). */
    readonly retryAfterMs?: number,
  ) {
    super('upstream', message);
  }
}

/**
 * Where the two APIs are: api.dingtalk.com and oapi.dingtalk.com, or the account's api_base for
 * both (a proxy, or the fake platform of the tests).
 */
export function originsOf(config: DingTalkAccount): { api: string; oapi: string } {
  const base = config.api_base?.replace(/\/+$/, '');
  return base ? { api: base, oapi: base } : { api: DINGTALK_API_BASE, oapi: DINGTALK_OAPI_BASE };
}

export interface HttpCall {
  /** Names the call in error messages ("dingtalk groupMessages/send"). */
  what: string;
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON. */
  body?: object | FormData;
  signal?: AbortSignal | undefined;
  /** Removed from any text of the answer that reaches an error message. */
  secrets: ReadonlyArray<string | undefined>;
}

export type Answer = Record<string, unknown>;

function retryAfterOf(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  const value = Number(header);
  return response.status === 429 && header !== null && Number.isFinite(value) && value >= 0
    ? value * 1000
    : undefined;
}

/**
 * One HTTP call answered with JSON. A status of 400 or more, or an old-API `errcode` other than 0,
 * is a DingTalkError carrying the platform's code and (scrubbed) message.
 */
export async function callJson(call: HttpCall, timeoutMs: number): Promise<Answer> {
  const signals = [AbortSignal.timeout(timeoutMs), ...(call.signal ? [call.signal] : [])];
  const isForm = call.body instanceof FormData;
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: call.method,
      redirect: 'error',
      headers: {
        accept: 'application/json',
        ...(call.body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}),
        ...call.headers,
      },
      ...(call.body === undefined
        ? {}
        : { body: isForm ? (call.body as FormData) : JSON.stringify(call.body) }),
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason;
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    // Only a code or a fixed phrase: the transport's own text can quote the URL.
    const detail =
      typeof code === 'string' && /^[A-Z_0-9]{2,40}$/.test(code)
        ? code
        : (error as Error).name === 'TimeoutError'
          ? 'timed out'
          : 'request failed';
    throw new DingTalkError(`${call.what}: could not reach DingTalk (${detail})`);
  }
  let answer: Answer = {};
  try {
    const text = await readCapped(response, MAX_ANSWER_BYTES);
    const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) answer = parsed as Answer;
  } catch (error) {
    if (response.ok) {
      const why = error instanceof AppError ? error.message : 'an answer that is not JSON';
      throw new DingTalkError(`${call.what}: DingTalk sent ${why} (status ${response.status})`);
    }
  }
  const errcode = answer['errcode'];
  if (response.status >= 400 || (errcode !== undefined && errcode !== 0 && errcode !== '0')) {
    const code = String(answer['code'] ?? errcode ?? response.status);
    const message = String(answer['message'] ?? answer['errmsg'] ?? 'no message');
    const safe = scrubSecrets(`${code}: ${message}`, call.secrets).slice(0, 300);
    throw new DingTalkError(
      `${call.what} failed (${response.status}) ${safe}`,
      response.status,
      scrubSecrets(code, call.secrets),
      retryAfterOf(response),
    );
  }
  return answer;
}

interface CachedToken {
  /** Which credentials and origin the token belongs to. */
  owner: string;
  token: string;
  refreshAt: number;
}

export interface OpenApiOptions {
  /** Time limit of one call, in ms. */
  timeoutMs: number;
}

/** The token-holding client of one adapter; accounts are told apart by id and credentials. */
export class DingTalkOpenApi {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly options: OpenApiOptions) {}

  /** The secrets of an account (and its current token) to scrub from any text. */
  secretsOf(account: ChannelAccount<DingTalkAccount>): string[] {
    const cached = this.tokens.get(account.id);
    return [account.config.app_secret ?? '', ...(cached ? [cached.token] : [])];
  }

  /** A call of the new API (https://api.dingtalk.com/v1.0/...) with the app's access token. */
  async call(
    account: ChannelAccount<DingTalkAccount>,
    what: string,
    method: 'POST' | 'PUT',
    path: string,
    body: object,
    signal?: AbortSignal,
  ): Promise<Answer> {
    const url = `${originsOf(account.config).api}${path}`;
    return this.withToken(account, (token) =>
      callJson(
        {
          what,
          method,
          url,
          body,
          signal,
          headers: { 'x-acs-dingtalk-access-token': token },
          secrets: [account.config.app_secret, token],
        },
        this.options.timeoutMs,
      ),
    );
  }

  /** Uploads media through the old API (POST /media/upload); returns its media_id. */
  async upload(
    account: ChannelAccount<DingTalkAccount>,
    type: 'image' | 'file',
    data: Blob,
    fileName: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const base = originsOf(account.config).oapi;
    const answer = await this.withToken(account, (token) => {
      const form = new FormData();
      form.set('media', data, fileName);
      return callJson(
        {
          what: 'dingtalk media/upload',
          method: 'POST',
          url: `${base}/media/upload?access_token=${encodeURIComponent(token)}&type=${type}`,
          body: form,
          signal,
          secrets: [account.config.app_secret, token],
        },
        this.options.timeoutMs,
      );
    });
    const mediaId = answer['media_id'];
    if (typeof mediaId !== 'string' || mediaId === '') {
      throw new DingTalkError('dingtalk media/upload: the answer has no media_id');
    }
    return mediaId;
  }

  /** Runs `request` with a valid token; a token the platform no longer accepts is renewed once. */
  private async withToken<T>(account: ChannelAccount<DingTalkAccount>, request: (token: string) => Promise<T>): Promise<T> {
    const first = await this.token(account);
    try {
      return await request(first.token);
    } catch (error) {
      if (!(error instanceof DingTalkError) || !isTokenRefusal(error)) throw error;
      if (this.tokens.get(account.id) === first) this.tokens.delete(account.id);
      const fresh = await this.token(account);
      return request(fresh.token);
    }
  }

  private async token(account: ChannelAccount<DingTalkAccount>): Promise<CachedToken> {
    const { app_id: appKey, app_secret: appSecret } = account.config;
    if (!appKey || !appSecret) {
      throw new AppError('conflict', `dingtalk account "${account.id}" has no app_id and app_secret`);
    }
    const api = originsOf(account.config).api;
    const owner = digest(`${api}\u0000${appKey}\u0000${appSecret}`).toString('hex');
    const cached = this.tokens.get(account.id);
    if (cached?.owner === owner && Date.now() < cached.refreshAt) return cached;
    const key = `${account.id}\u0000${owner}`;
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.fetchToken(api, appKey, appSecret, owner).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    const fresh = await pending;
    this.tokens.set(account.id, fresh);
    return fresh;
  }

  private async fetchToken(
    api: string,
    appKey: string,
    appSecret: string,
    owner: string,
  ): Promise<CachedToken> {
    const answer = await callJson(
      {
        what: 'dingtalk oauth2/accessToken',
        method: 'POST',
        url: `${api}/v1.0/oauth2/accessToken`,
        body: { appKey, appSecret },
        secrets: [appSecret],
      },
      this.options.timeoutMs,
    );
    const token = answer['accessToken'];
    const expireIn = Number(answer['expireIn'] ?? 7200);
    if (typeof token !== 'string' || token === '') {
      throw new DingTalkError('dingtalk oauth2/accessToken: the answer has no accessToken');
    }
    // Renewed five minutes before it expires (or half way through a short lifetime).
    const lifetimeMs = Math.max(Number.isFinite(expireIn) ? expireIn : 0, 0) * 1000;
    return { owner, token, refreshAt: Date.now() + lifetimeMs - Math.min(300_000, lifetimeMs / 2) };
  }
}

/** The platform no longer accepts the token (expired early, or revoked). */
function isTokenRefusal(error: DingTalkError): boolean {
  return (
    error.httpStatus === 401 ||
    error.code === 'InvalidAuthentication' ||
    error.code === '40014' ||
    error.code === '42001'
  );
}
