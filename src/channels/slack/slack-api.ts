// The Slack Web API as this adapter uses it: one official WebClient per bot token and API URL, a
// 429's Retry-After honoured (every call of that client waits it out, then the call is retried),
// failures turned into AppErrors that never carry a token, the three steps of files.uploadV2, and
// downloads of users' files (url_private) with the bot token, only from the files host allowed.
import type { Logger } from '../../core/logger.ts';
import { createHash } from 'node:crypto';
import type { webApi } from '@slack/bolt';
import { sleep } from '../../core/async.ts';
import { AppError, errorMessage } from '../../core/errors.ts';
import { PlatformError, platformFetch } from '../platform-http.ts';
import type { ChannelAccount } from '../types.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import { quietSlackLogger, SLACK_TOKENS } from './slack-logger.ts';
import type { SlackAccount } from './account.ts';

export const SLACK_API_URL = 'https://slack.com/api/';
/** Where Slack serves users' files (url_private) and takes uploads. */
export const SLACK_FILES_HOST = 'files.slack.com';

export interface SlackCredentials {
  /** The bot token (xoxb-...), the account's app_secret. */
  botToken: string;
  /** The Web API URL, ending in "/" (api_base, or https://slack.com/api/). */
  apiUrl: string;
}

/**
 * The Web API URL of an account: api_base as given when it has a path (http://127.0.0.1:8080/api/),
 * its origin + "/api/" when it is only an origin, else Slack's.
 */
export function apiUrlOf(apiBase: string | undefined): string {
  if (!apiBase) return SLACK_API_URL;
  const url = new URL(apiBase);
  const path =
    url.pathname === '/' ? '/api/' : url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  return `${url.origin}${path}`;
}

export function credentialsOf(account: ChannelAccount<SlackAccount>): SlackCredentials {
  const botToken = account.config.app_secret;
  if (!botToken)
    throw new AppError('conflict', `slack account "${account.id}" has no app_secret (bot token)`);
  return { botToken, apiUrl: apiUrlOf(account.config.api_base) };
}

/** Whether `url` is on the host that serves this account's files (the api_base host, or Slack's). */
export function isFilesUrl(credentials: SlackCredentials, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username || parsed.password) return false;
  if (credentials.apiUrl === SLACK_API_URL)
    return parsed.protocol === 'https:' && parsed.host === SLACK_FILES_HOST;
  const api = new URL(credentials.apiUrl);
  return parsed.protocol === api.protocol && parsed.host === api.host;
}

type SlackSdk = typeof webApi;
type WebClient = InstanceType<SlackSdk['WebClient']>;

interface ClientEntry {
  client: WebClient;
  /** No call of this client starts before this time (a 429's Retry-After), in ms since the epoch. */
  blockedUntil: number;
  identity?: Promise<SlackIdentity> | undefined;
}

/** Who the bot is (auth.test). */
export interface SlackIdentity {
  userId: string;
  botId?: string;
}

export interface SlackApiOptions {
  /** Time limit of one call, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** How many times a call answered 429 is retried after its Retry-After (default 5). */
  maxRateLimitRetries?: number;
  /** The longest Retry-After waited for, in seconds (default 120); a longer one fails the call. */
  maxRetryAfterSeconds?: number;
  logger: Logger | undefined;
}

const keyOf = (credentials: SlackCredentials): string =>
  createHash('sha256').update(`${credentials.apiUrl}\u0000${credentials.botToken}`).digest('hex');

export class SlackApi {
  private readonly clients = new Map<string, ClientEntry>();
  private sdk: Promise<SlackSdk> | undefined;

  constructor(private readonly options: SlackApiOptions) {}

  /** The Web API module of @slack/bolt, loaded with the first Slack account (not at start). */
  private loadSdk(): Promise<SlackSdk> {
    this.sdk ??= import('@slack/bolt').then((bolt) => bolt.webApi);
    return this.sdk;
  }

  private async entry(credentials: SlackCredentials): Promise<ClientEntry> {
    const key = keyOf(credentials);
    const found = this.clients.get(key);
    if (found) return found;
    const sdk = await this.loadSdk();
    const created: ClientEntry = {
      client: new sdk.WebClient(credentials.botToken, {
        slackApiUrl: credentials.apiUrl,
        logger: quietSlackLogger(this.options.logger),
        // A 429 comes back to us (we wait out Retry-After with the caller's signal); network errors
        // and 5xx are retried twice, quickly.
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 2, factor: 2, minTimeout: 100, maxTimeout: 1000 },
        timeout: this.options.requestTimeoutMs ?? 30_000,
        // Method names only: an absolute URL would carry the token elsewhere.
        allowAbsoluteUrls: false,
      }),
      blockedUntil: 0,
    };
    // Clients of rotated tokens are dropped when they pile up; a new one is cheap.
    if (this.clients.size >= 64) this.clients.clear();
    this.clients.set(key, created);
    return created;
  }

  /** Calls a Web API method; a 429 is retried after its Retry-After, other failures throw PlatformError. */
  async call(
    credentials: SlackCredentials,
    method: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const entry = await this.entry(credentials);
    const maxRetries = this.options.maxRateLimitRetries ?? 5;
    for (let attempt = 0; ; attempt += 1) {
      const wait = entry.blockedUntil - Date.now();
      if (wait > 0) await sleep(wait, signal);
      try {
        return (await entry.client.apiCall(method, args)) as unknown as Record<string, unknown>;
      } catch (error) {
        const limited = rateLimitOf(error);
        if (
          limited !== undefined &&
          attempt < maxRetries &&
          limited <= (this.options.maxRetryAfterSeconds ?? 120) &&
          !signal?.aborted
        ) {
          entry.blockedUntil = Math.max(entry.blockedUntil, Date.now() + limited * 1000);
          this.options.logger?.info(
            { method, retryAfterSeconds: limited, attempt: attempt + 1 },
            'slack rate limited a call; retrying after Retry-After',
          );
          continue;
        }
        throw toSlackError(method, error, [credentials.botToken]);
      }
    }
  }

  /** The bot's own user id (auth.test), asked once per client. */
  identity(credentials: SlackCredentials): Promise<SlackIdentity> {
    return this.entry(credentials).then((entry) => {
      entry.identity ??= this.call(credentials, 'auth.test', {}).then((result) => ({
        userId: String(result['user_id'] ?? ''),
        ...(typeof result['bot_id'] === 'string' ? { botId: result['bot_id'] } : {}),
      }));
      entry.identity.catch(() => {
        entry.identity = undefined;
      });
      return entry.identity;
    });
  }

  /** files.uploadV2's three steps: an upload URL, the bytes to it, then the share to the channel. */
  async uploadFile(
    credentials: SlackCredentials,
    channel: string,
    data: Blob,
    fileName: string,
    threadTs?: string,
  ): Promise<string> {
    const ticket = await this.call(credentials, 'files.getUploadURLExternal', {
      filename: fileName,
      length: data.size,
    });
    const uploadUrl = ticket['upload_url'];
    const fileId = ticket['file_id'];
    if (typeof uploadUrl !== 'string' || typeof fileId !== 'string') {
      throw new PlatformError('slack files.getUploadURLExternal failed: no upload_url in the answer');
    }
    if (!isFilesUrl(credentials, uploadUrl)) {
      throw new PlatformError(
        'slack files.getUploadURLExternal failed: the upload URL is not on the files host',
      );
    }
    // The upload URL is pre-signed: the token is not sent with the bytes.
    const response = await platformFetch({
      what: 'slack file upload',
      url: uploadUrl,
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: data,
      timeoutMs: this.options.requestTimeoutMs ?? 60_000,
      maxBytes: 64 * 1024,
    });
    if (response.status !== 200) throw new PlatformError(`slack file upload failed: HTTP ${response.status}`);
    await this.call(credentials, 'files.completeUploadExternal', {
      files: [{ id: fileId, title: fileName }],
      channel_id: channel,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    return fileId;
  }

  /** Downloads a user's file (url_private) with the bot token, from the allowed files host only. */
  async download(credentials: SlackCredentials, url: string, maxBytes: number): Promise<Buffer> {
    if (!isFilesUrl(credentials, url))
      throw new PlatformError('slack file download refused: not on the files host');
    const response = await platformFetch({
      what: 'slack file download',
      url,
      // No redirect: one could carry the token to another host.
      headers: { authorization: `Bearer ${credentials.botToken}` },
      timeoutMs: this.options.requestTimeoutMs ?? 30_000,
      maxBytes,
      secrets: [credentials.botToken],
    });
    if (response.status !== 200)
      throw new PlatformError(`slack file download failed: HTTP ${response.status}`);
    // Slack answers a download it refuses with its sign-in page (status 200, HTML).
    if ((response.headers.get('content-type') ?? '').startsWith('text/html')) {
      throw new PlatformError(
        'slack file download failed: refused (does the bot have the files:read scope?)',
      );
    }
    return response.body;
  }
}

/** Retry-After in seconds when `error` is the WebClient's rate-limit error. */
function rateLimitOf(error: unknown): number | undefined {
  const coded = (error ?? {}) as { code?: unknown; retryAfter?: unknown };
  if (coded.code !== 'slack_webapi_rate_limited_error') return undefined;
  return typeof coded.retryAfter === 'number' && Number.isFinite(coded.retryAfter) ? coded.retryAfter : 1;
}

/** A WebClient failure as a PlatformError naming the step and Slack's error code, never a token. */
export function toSlackError(
  step: string,
  error: unknown,
  secrets: Array<string | undefined>,
): PlatformError {
  const coded = (error ?? {}) as { code?: unknown; data?: { error?: unknown }; statusCode?: unknown };
  switch (coded.code) {
    case 'slack_webapi_platform_error': {
      const code = scrubSecrets(String(coded.data?.error ?? 'unknown_error'), secrets, [SLACK_TOKENS]).slice(
        0,
        100,
      );
      return new PlatformError(`slack ${step} failed: ${code}`, { code });
    }
    case 'slack_webapi_rate_limited_error': {
      const seconds = rateLimitOf(error);
      return new PlatformError(`slack ${step} failed: rate limited (retry after ${seconds} s)`, {
        code: 'ratelimited',
        retryAfterMs: seconds === undefined ? undefined : seconds * 1000,
      });
    }
    case 'slack_webapi_http_error':
      return new PlatformError(`slack ${step} failed: HTTP ${String(coded.statusCode)}`);
    case 'slack_webapi_request_error':
      return new PlatformError(`slack ${step} failed: could not reach the Slack API`);
    default:
      return new PlatformError(
        `slack ${step} failed: ${scrubSecrets(errorMessage(error), secrets, [SLACK_TOKENS])}`,
      );
  }
}
