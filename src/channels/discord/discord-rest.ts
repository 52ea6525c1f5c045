// The Discord REST API of each account, through @discordjs/rest (the REST client of discord.js): it
// keeps Discord's per-route rate-limit buckets and, on a 429, waits out retry_after and retries.
// A wait longer than maxRateLimitWaitMs fails the call instead of holding it. The account's api_base
// (default https://discord.com) is where `/api/v10/...` is called: a proxy, or a fake in tests.
// Failures become PlatformErrors whose messages never carry the bot token.
import { createHash } from 'node:crypto';
import type * as DiscordRestModule from '@discordjs/rest';
import type { REST } from '@discordjs/rest';
import { AppError } from '../../core/errors.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import { PlatformError } from '../platform-http.ts';
import type { ChannelAccount } from '../types.ts';
import type { DiscordAccount } from './account.ts';

export const DISCORD_API_BASE = 'https://discord.com';

type RestModule = typeof DiscordRestModule;
let restModule: RestModule | undefined;

/**
 * @discordjs/rest (and undici under it) is loaded with the first Discord account, so a server
 * without one never pays for it at start.
 */
export async function loadRest(): Promise<RestModule> {
  restModule ??= await import('@discordjs/rest');
  return restModule;
}

export interface DiscordRestOptions {
  /** Time limit of one request, in ms (default 15000). */
  requestTimeoutMs?: number;
  /** Longest rate-limit wait a call sits out before failing, in ms (default 30000). */
  maxRateLimitWaitMs?: number;
}

export function tokenOf(account: ChannelAccount<DiscordAccount>): string {
  const token = account.config.app_secret?.trim();
  if (!token) throw new AppError('conflict', `discord account "${account.id}" has no bot token (app_secret)`);
  // Some copy the token with the scheme in front; the header adds it.
  return token.replace(/^Bot\s+/i, '');
}

/** The API root of an account: its api_base (an origin, or a path ending in /api) plus /api. */
export function apiRoot(account: ChannelAccount<DiscordAccount>): string {
  const base = (account.config.api_base ?? DISCORD_API_BASE).replace(/\/+$/, '');
  return base.endsWith('/api') ? base : `${base}/api`;
}

interface Client {
  key: string;
  rest: REST;
}

export class DiscordRest {
  private readonly clients = new Map<string, Client>();

  constructor(private readonly options: DiscordRestOptions = {}) {}

  /** The REST client of an account, kept while its token and API origin stay the same. */
  async client(account: ChannelAccount<DiscordAccount>): Promise<REST> {
    const { REST } = await loadRest();
    const token = tokenOf(account);
    const api = apiRoot(account);
    const key = createHash('sha256').update(`${api}\u0000${token}`).digest('hex');
    const found = this.clients.get(account.id);
    // A 401 makes the client forget its token; the next call sets it again.
    if (found?.key === key) return found.rest.setToken(token);
    const maxWait = this.options.maxRateLimitWaitMs ?? 30_000;
    const rest = new REST({
      api,
      version: '10',
      timeout: this.options.requestTimeoutMs ?? 15_000,
      retries: 2,
      // Buckets live as long as the client; no background sweeping timers.
      hashSweepInterval: 0,
      handlerSweepInterval: 0,
      rejectOnRateLimit: (limit) => Math.max(limit.retryAfter, limit.sublimitTimeout) > maxWait,
    }).setToken(token);
    this.clients.set(account.id, { key, rest });
    return rest;
  }

  /**
   * Runs one call of an account, turning every failure into a PlatformError. The REST client never
   * removes the abort listener it adds, so it gets a signal of its own, linked to `signal` for the call.
   */
  async call<T>(
    account: ChannelAccount<DiscordAccount>,
    what: string,
    run: (rest: REST, signal: AbortSignal | undefined) => Promise<unknown>,
    signal?: AbortSignal,
  ): Promise<T> {
    const rest = await this.client(account);
    const controller = signal ? new AbortController() : undefined;
    const onAbort = (): void => controller?.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) throw signal.reason;
      return (await run(rest, controller?.signal)) as T;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw describeFailure(what, error, tokenOf(account));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** A PlatformError for a failed call, naming what failed and why in words safe to show. */
export function describeFailure(what: string, error: unknown, token: string | undefined): PlatformError {
  if (error instanceof PlatformError) return error;
  const sdk = restModule;
  if (sdk && error instanceof sdk.RateLimitError) {
    const seconds = Math.round(Math.max(error.retryAfter, error.sublimitTimeout, 0) / 1000);
    return new PlatformError(`discord ${what}: rate limited by Discord; retry after ${seconds} s`, {
      status: 429,
      retryAfterMs: Math.max(error.retryAfter, 0),
    });
  }
  if (sdk && (error instanceof sdk.DiscordAPIError || error instanceof sdk.HTTPError)) {
    const detail =
      error.status === 401
        ? 'the bot token was refused (401 Unauthorized)'
        : scrubSecrets(String(error.message), [token]).slice(0, 300);
    return new PlatformError(`discord ${what} failed (${error.status}): ${detail}`, { status: error.status });
  }
  const name = (error as { name?: unknown } | undefined)?.name;
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } } | undefined)?.code ??
    (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  // Only a code or a fixed phrase: a transport's own text may quote a URL or a header.
  const reason =
    typeof code === 'string' && /^[A-Z_0-9]{2,40}$/.test(code)
      ? code
      : name === 'AbortError' || name === 'TimeoutError'
        ? 'timed out'
        : 'request failed';
  return new PlatformError(`discord ${what}: could not reach the Discord API (${reason})`);
}
