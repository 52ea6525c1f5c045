// DingTalk's HTTP APIs for one adapter: the app access token (POST /v1.0/oauth2/accessToken, cached
// per account until shortly before it expires), JSON calls to the new API with the token in the
// x-acs-dingtalk-access-token header, the old API's media upload (token in the query), and posts to
// a message's sessionWebhook. Every failure is a PlatformError whose message never contains the app
// secret, a token or a ticket; redirects are refused so the token never reaches another origin.
import { digest } from '../../core/secrets.ts';
import { AppError } from '../../core/errors.ts';
import { PlatformError, platformFailure, platformFetch, type PlatformResponse } from '../platform-http.ts';
import { withTokenRenewal } from '../token-renewal.ts';
import type { ChannelAccount } from '../types.ts';
import type { DingTalkAccount } from './account.ts';

export const DINGTALK_API_BASE = 'https://api.dingtalk.com';
export const DINGTALK_OAPI_BASE = 'https://oapi.dingtalk.com';
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

/** The largest JSON answer read; anything bigger is refused unread. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * One HTTP call answered with JSON. A status of 400 or more, or an old-API `errcode` other than 0,
 * is a PlatformError carrying the platform's code and (scrubbed) message.
 */
export async function callJson(call: HttpCall, timeoutMs: number): Promise<Answer> {
  const response = await platformFetch({
    what: call.what,
    url: call.url,
    method: call.method,
    headers: { accept: 'application/json', ...call.headers },
    ...(call.body instanceof FormData
      ? { body: call.body }
      : call.body === undefined
        ? {}
        : { json: call.body }),
    signal: call.signal,
    timeoutMs,
    maxBytes: MAX_ANSWER_BYTES,
    secrets: call.secrets,
  });
  // A failure's body may be a proxy's page: its status still says what happened.
  const answer = response.ok ? response.json() : safeJson(response);
  const errcode = answer['errcode'];
  if (response.status >= 400 || (errcode !== undefined && errcode !== 0 && errcode !== '0')) {
    throw platformFailure(call.what, {
      status: response.status,
      code: String(answer['code'] ?? errcode ?? response.status),
      message: String(answer['message'] ?? answer['errmsg'] ?? 'no message'),
      secrets: call.secrets,
      retryAfterMs: response.retryAfterMs,
    });
  }
  return answer;
}

function safeJson(response: PlatformResponse): Answer {
  try {
    return response.json();
  } catch {
    return {};
  }
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
      throw new PlatformError('dingtalk media/upload: the answer has no media_id');
    }
    return mediaId;
  }

  /** Runs `request` with a valid token; a token the platform no longer accepts is renewed once. */
  private withToken<T>(
    account: ChannelAccount<DingTalkAccount>,
    request: (token: string) => Promise<T>,
  ): Promise<T> {
    return withTokenRenewal(
      { tokens: this.tokens, key: account.id, current: () => this.token(account) },
      (error) => error instanceof PlatformError && isTokenRefusal(error),
      (cached) => request(cached.token),
    );
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
      throw new PlatformError('dingtalk oauth2/accessToken: the answer has no accessToken');
    }
    // Renewed five minutes before it expires (or half way through a short lifetime).
    const lifetimeMs = Math.max(Number.isFinite(expireIn) ? expireIn : 0, 0) * 1000;
    return { owner, token, refreshAt: Date.now() + lifetimeMs - Math.min(300_000, lifetimeMs / 2) };
  }
}

/** The platform no longer accepts the token (expired early, or revoked). */
function isTokenRefusal(error: PlatformError): boolean {
  return (
    error.httpStatus === 401 ||
    error.code === 'InvalidAuthentication' ||
    error.code === '40014' ||
    error.code === '42001'
  );
}
