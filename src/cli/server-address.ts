// Which server a client command talks to: --url, then SERVICE_URL, then the host and port of the
// config file, then the default address. The source is kept so an error can say what was tried.
import { discoverConfigPath, loadConfigFile, type Env } from '../config/load.ts';
import { DEFAULT_PORT, type Config } from '../config/schema.ts';
import { runningServerAddress } from '../storage/data-root-lock.ts';
import { usageError } from './errors.ts';

export interface ServerAddress {
  /** Base URL without /api/v1 and without a trailing slash, e.g. http://127.0.0.1:9527. */
  url: string;
  /** Where the address came from: "--url", "SERVICE_URL", "config file <path>" or "default". */
  source: string;
  config: Config | undefined;
  configPath: string | undefined;
}

/** The address as an error may quote it: a user name and password before `@` become `***`. */
export function shownAddress(input: string): string {
  return input.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i, '$1***@');
}

/** Accepts `host:port`, `:port`, a port, a base URL or a URL ending in /api/v1. */
export function normalizeServerUrl(input: string, what = '--url'): string {
  const shown = shownAddress(input);
  let text = input.trim();
  if (/^\d+$/.test(text)) text = `127.0.0.1:${text}`;
  if (text.startsWith(':')) text = `127.0.0.1${text}`;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `http://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${what}: "${shown}" is not a server address (use host:port or http://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`${what}: "${shown}" must be an http or https address`);
  if (url.username || url.password || url.search || url.hash)
    throw usageError(`${what}: "${shown}" must not carry credentials, a query or a fragment`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

function hostOf(config: Config): string {
  const host = config.server.host;
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function loadLocalConfig(
  explicit: string | undefined,
  cwd: string,
  env: Env,
  home: string,
): Promise<{ config: Config | undefined; path: string | undefined; problem?: string }> {
  const found = await discoverConfigPath(explicit, cwd, home);
  if (!found.exists) return { config: undefined, path: explicit ? found.path : undefined };
  try {
    return { config: (await loadConfigFile(found.path, env)).config, path: found.path };
  } catch (error) {
    return { config: undefined, path: found.path, problem: (error as Error).message };
  }
}

export async function resolveServer(options: {
  url: string | undefined;
  config: string | undefined;
  env: Env;
  cwd: string;
  home: string;
}): Promise<ServerAddress> {
  const local = await loadLocalConfig(options.config, options.cwd, options.env, options.home);
  const base = { config: local.config, configPath: local.path };
  if (options.url) return { ...base, url: normalizeServerUrl(options.url), source: '--url' };
  const fromEnv = options.env['SERVICE_URL'];
  if (fromEnv) return { ...base, url: normalizeServerUrl(fromEnv, 'SERVICE_URL'), source: 'SERVICE_URL' };
  const running = local.config ? await runningServerAddress(local.config.data.root_dir) : undefined;
  if (running)
    return {
      ...base,
      url: `http://${running}`,
      source: `the server running on the data root of config file ${local.path}`,
    };
  if (local.config)
    return {
      ...base,
      url: `http://${hostOf(local.config)}:${local.config.server.port}`,
      source: `config file ${local.path}`,
    };
  return { ...base, url: `http://127.0.0.1:${DEFAULT_PORT}`, source: 'default' };
}
