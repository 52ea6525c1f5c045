// How the command-line client finds its credential (API contract, Authentication rule 6):
// SERVICE_API_KEY; else the api_key of the first enabled account under channels.api.accounts in the
// config file; else a JWT cached by `agent-service login`.
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.ts';
import type { Config } from '../config/schema.ts';

export interface CachedToken {
  url: string;
  token: string;
  expireAt: string;
}

export function tokenCachePath(home: string = homedir()): string {
  return join(home, '.agent-service', 'token.json');
}

export function firstAccountKey(config: Config | undefined): string | undefined {
  const api = config?.channels.api;
  if (!api || api.enabled === false) return undefined;
  return Object.values(api.accounts).find((account) => account.enabled && account.api_key)?.api_key;
}

export async function readCachedToken(
  path: string,
  url: string,
  now = Date.now(),
): Promise<string | undefined> {
  try {
    const cached = JSON.parse(await readFile(path, 'utf8')) as Partial<CachedToken>;
    if (cached.url !== url || typeof cached.token !== 'string' || Date.parse(cached.expireAt ?? '') <= now)
      return undefined;
    return cached.token;
  } catch {
    return undefined;
  }
}

export async function writeCachedToken(path: string, token: CachedToken): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, JSON.stringify(token), { mode: 0o600 });
}

/**
 * The credential for a call. Account keys only open the chat endpoint, so management commands
 * (`forChat: false`) skip them and go on to the cached login.
 */
export async function findCredential(options: {
  env: Record<string, string | undefined>;
  config: Config | undefined;
  url: string;
  tokenPath: string;
  forChat?: boolean;
}): Promise<string | undefined> {
  const accountKey = options.forChat === false ? undefined : firstAccountKey(options.config);
  return (
    options.env['SERVICE_API_KEY'] || accountKey || (await readCachedToken(options.tokenPath, options.url))
  );
}
