// The server API of a WeCom self-built app (mode app): an access token from
// GET /cgi-bin/gettoken?corpid=&corpsecret=, cached per account and credentials until shortly before
// it expires and fetched again once when WeCom calls it invalid or expired; then message/send,
// media/upload and media/get with it. The origin is the account's api_base (default
// https://qyapi.weixin.qq.com). Tokens and secrets travel in query strings, so every message this
// file produces is scrubbed of them, transport errors are reduced to a code, and redirects are refused.
import { createHash } from 'node:crypto';
import { AppError } from '../../core/errors.ts';
import { PlatformError, platformFailure, platformFetch, type PlatformResponse } from '../platform-http.ts';
import { withTokenRenewal } from '../token-renewal.ts';
import type { ChannelAccount } from '../types.ts';
import type { WecomAccount } from './account.ts';

export const WECOM_API_BASE = 'https://qyapi.weixin.qq.com';
/** The largest JSON answer read; anything bigger is refused unread. */
const MAX_REPLY_BYTES = 1024 * 1024;
/** errcodes of an invalid or expired access token: a new token is fetched and the call made again once. */
const TOKEN_ERRORS = new Set([40014, 42001, 42007]);

export interface WecomAppApiOptions {
  /** Time limit of one API call, in ms (default 30000). */
  requestTimeoutMs?: number;
  now?: () => number;
}

interface Token {
  value: string;
  expiresAt: number;
}

export interface ApiRequest {
  query?: Record<string, string>;
  json?: unknown;
  /** A multipart body, built anew for each attempt. */
  form?: () => FormData;
}

type Answer = Record<string, unknown>;

function baseOf(account: ChannelAccount<WecomAccount>): string {
  return (account.config.api_base ?? WECOM_API_BASE).replace(/\/+$/, '');
}

export class WecomAppApi {
  private readonly tokens = new Map<string, Token>();
  private readonly fetching = new Map<string, Promise<Token>>();

  constructor(private readonly options: WecomAppApiOptions = {}) {}

  /** The account's secrets and access token, to scrub from any text. */
  secretsOf(account: ChannelAccount<WecomAccount>): string[] {
    const { app_secret, token, encoding_aes_key } = account.config;
    const current = this.tokens.get(this.keyOf(account))?.value;
    return [app_secret, token, encoding_aes_key, current].filter((value): value is string => !!value);
  }

  /** One JSON call with the access token. */
  call(
    account: ChannelAccount<WecomAccount>,
    path: string,
    request: ApiRequest = {},
    signal?: AbortSignal,
  ): Promise<Answer> {
    return this.withToken(account, signal, async (token) => {
      const response = await this.fetch(
        account,
        path,
        { ...request, query: { ...request.query, access_token: token } },
        MAX_REPLY_BYTES,
        signal,
      );
      return this.answerOf(account, path, response);
    });
  }

  /** Downloads a file the user sent (media/get), at most `maxBytes`. */
  download(
    account: ChannelAccount<WecomAccount>,
    mediaId: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<Buffer> {
    const path = '/cgi-bin/media/get';
    return this.withToken(account, signal, async (token) => {
      const response = await this.fetch(
        account,
        path,
        { query: { access_token: token, media_id: mediaId } },
        maxBytes,
        signal,
      );
      // Errors come as JSON; the file as anything else.
      if ((response.headers.get('content-type') ?? '').includes('json') || !response.ok) {
        this.answerOf(account, path, response);
        throw new PlatformError(`wecom ${path}: no file in the answer (status ${response.status})`);
      }
      return response.body;
    });
  }

  private withToken<T>(
    account: ChannelAccount<WecomAccount>,
    signal: AbortSignal | undefined,
    run: (token: string) => Promise<T>,
  ): Promise<T> {
    return withTokenRenewal(
      { tokens: this.tokens, key: this.keyOf(account), current: () => this.token(account) },
      (error) => error instanceof PlatformError && TOKEN_ERRORS.has(Number(error.code)) && !signal?.aborted,
      (token) => run(token.value),
    );
  }

  private token(account: ChannelAccount<WecomAccount>): Promise<Token> {
    const key = this.keyOf(account);
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve(cached);
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = this.fetchToken(account, key).finally(() => this.fetching.delete(key));
      this.fetching.set(key, pending);
    }
    return pending;
  }

  private async fetchToken(account: ChannelAccount<WecomAccount>, key: string): Promise<Token> {
    const { app_id: corpId, app_secret: secret } = account.config;
    if (!corpId || !secret) {
      throw new AppError('conflict', `wecom account "${account.id}" needs app_id (corp id) and app_secret`);
    }
    const path = '/cgi-bin/gettoken';
    const response = await this.fetch(
      account,
      path,
      { query: { corpid: corpId, corpsecret: secret } },
      MAX_REPLY_BYTES,
    );
    const answer = this.answerOf(account, path, response);
    const value = answer['access_token'];
    if (typeof value !== 'string' || value === '')
      throw new PlatformError(`wecom ${path}: no access_token in the answer`);
    const seconds = typeof answer['expires_in'] === 'number' ? answer['expires_in'] : 7200;
    // Renewed five minutes early (or halfway, for a short-lived token), so no call carries an expired one.
    const lifetimeMs = (seconds > 600 ? seconds - 300 : seconds / 2) * 1000;
    const token = { value, expiresAt: this.now() + lifetimeMs };
    for (const other of this.tokens.keys()) {
      if (other.startsWith(`${account.id}\u0000`)) this.tokens.delete(other);
    }
    this.tokens.set(key, token);
    return token;
  }

  private fetch(
    account: ChannelAccount<WecomAccount>,
    path: string,
    request: ApiRequest,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<PlatformResponse> {
    return platformFetch({
      what: `wecom ${path}`,
      url: `${baseOf(account)}${path}?${new URLSearchParams(request.query ?? {}).toString()}`,
      ...(request.form !== undefined
        ? { body: request.form() }
        : request.json !== undefined
          ? { json: request.json }
          : {}),
      signal,
      timeoutMs: this.options.requestTimeoutMs ?? 30_000,
      maxBytes,
      secrets: [...this.secretsOf(account), request.query?.['access_token']],
    });
  }

  private answerOf(account: ChannelAccount<WecomAccount>, path: string, response: PlatformResponse): Answer {
    const fields = response.json();
    const errcode =
      typeof fields['errcode'] === 'number' ? fields['errcode'] : response.ok ? 0 : response.status;
    if (errcode !== 0) {
      throw platformFailure(`wecom ${path}`, {
        status: response.status,
        code: errcode,
        message: String(fields['errmsg'] ?? 'no errmsg'),
        secrets: this.secretsOf(account),
        retryAfterMs: response.retryAfterMs,
      });
    }
    return fields;
  }

  /** Tokens belong to the credentials and origin they were fetched with. */
  private keyOf(account: ChannelAccount<WecomAccount>): string {
    const { app_id, app_secret, api_base } = account.config;
    const digest = createHash('sha256').update([app_id, app_secret, api_base].join('\u0000')).digest('hex');
    return `${account.id}\u0000${digest}`;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
