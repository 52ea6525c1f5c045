// How the command-line client finds its credential (API contract, Authentication rule 6):
// SERVICE_API_KEY; else the api_key of the first enabled account under channels.api.accounts in the
// config file; else the JWT cached by `agent-service login` for that server.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.ts';
import type { Env } from '../config/load.ts';
import type { Config } from '../config/schema.ts';

export interface CachedToken {
  token: string;
  expireAt: string;
  user: string;
}

interface TokenFile {
  servers: Record<string, CachedToken>;
}

export interface Credential {
  value: string;
  /** Where it came from, for messages (never the value itself). */
  source: string;
  kind: 'env' | 'account' | 'login';
}

/** `$XDG_CONFIG_HOME/agent-service/credentials.json`, by default under ~/.config; mode 0600. */
export function tokenStorePath(env: Env, home: string): string {
  const configHome = env['XDG_CONFIG_HOME'] || join(home, '.config');
  return join(configHome, 'agent-service', 'credentials.json');
}

async function readTokenFile(path: string): Promise<TokenFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<TokenFile>;
    if (parsed.servers && typeof parsed.servers === 'object') return { servers: parsed.servers };
  } catch {
    // missing or unreadable: no cached logins
  }
  return { servers: {} };
}

async function writeTokenFile(path: string, file: TokenFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

export async function readCachedToken(path: string, url: string): Promise<CachedToken | undefined> {
  const entry = (await readTokenFile(path)).servers[url];
  return entry && typeof entry.token === 'string' ? entry : undefined;
}

export async function saveCachedToken(path: string, url: string, token: CachedToken): Promise<void> {
  const file = await readTokenFile(path);
  file.servers[url] = token;
  await writeTokenFile(path, file);
}

/** Forgets the login of one server; answers whether there was one. */
export async function removeCachedToken(path: string, url: string): Promise<boolean> {
  const file = await readTokenFile(path);
  if (!file.servers[url]) return false;
  delete file.servers[url];
  await writeTokenFile(path, file);
  return true;
}

export function firstAccount(config: Config | undefined): { id: string; key: string } | undefined {
  const api = config?.channels.api;
  if (!api || api.enabled === false) return undefined;
  const keyOf = (account: { [field: string]: unknown }): string =>
    typeof account['api_key'] === 'string' ? account['api_key'] : '';
  const found = Object.entries(api.accounts).find(([, account]) => account.enabled && keyOf(account));
  return found ? { id: found[0], key: keyOf(found[1]) } : undefined;
}

/**
 * The credential for a call. Account keys only open the chat endpoint, so management commands
 * (`forChat: false`) skip them and go on to the cached login. An expired login is not used.
 */
export async function findCredential(options: {
  env: Env;
  config: Config | undefined;
  url: string;
  tokenPath: string;
  forChat: boolean;
  now?: number;
}): Promise<Credential | undefined> {
  const fromEnv = options.env['SERVICE_API_KEY'];
  if (fromEnv) return { value: fromEnv, source: 'SERVICE_API_KEY', kind: 'env' };
  const account = options.forChat ? firstAccount(options.config) : undefined;
  if (account)
    return { value: account.key, source: `the key of api account "${account.id}"`, kind: 'account' };
  const cached = await readCachedToken(options.tokenPath, options.url);
  if (cached && Date.parse(cached.expireAt) > (options.now ?? Date.now()))
    return { value: cached.token, source: `the login of ${cached.user}`, kind: 'login' };
  return undefined;
}
