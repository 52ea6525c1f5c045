// Client commands of `agent-service`: login, agents, chat. They talk to a running server over its
// REST API, like any other client.
import { parseArgs } from 'node:util';
import { discoverConfigPath, loadConfigFile, type Env } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { findCredential, tokenCachePath, writeCachedToken } from './credentials.ts';

export interface CliIo {
  env: Env;
  cwd: string;
  out: (text: string) => void;
  readStdin: () => Promise<string>;
}

const COMMON = {
  url: { type: 'string' },
  config: { type: 'string' },
} as const;

async function context(
  values: { url?: string | undefined; config?: string | undefined },
  io: CliIo,
  forChat = false,
) {
  let config: Config | undefined;
  const found = await discoverConfigPath(values.config, io.cwd);
  if (found.exists) config = (await loadConfigFile(found.path, io.env).catch(() => undefined))?.config;
  const host = config?.server.host === '0.0.0.0' || !config ? '127.0.0.1' : config.server.host;
  const url = (
    values.url ??
    io.env['SERVICE_URL'] ??
    `http://${host}:${config?.server.port ?? 9527}`
  ).replace(/\/+$/, '');
  const credential = await findCredential({
    env: io.env,
    config,
    url,
    tokenPath: tokenCachePath(io.env['HOME']),
    forChat,
  });
  return { url, credential };
}

async function call(
  url: string,
  path: string,
  credential: string | undefined,
  init: RequestInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (credential) headers.set('authorization', `Bearer ${credential}`);
  if (init.body) headers.set('content-type', 'application/json');
  const response = await fetch(`${url}${path}`, { ...init, headers });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new Error(`${response.status}: ${body.error ?? response.statusText}`);
  }
  return response;
}

export async function loginCommand(args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { ...COMMON, user: { type: 'string', default: 'admin' }, password: { type: 'string' } },
  });
  const { url } = await context(values, io);
  const password = values.password ?? io.env['SERVICE_PASSWORD'] ?? (await io.readStdin()).trim();
  const response = await call(url, '/api/v1/auth/login', undefined, {
    method: 'POST',
    body: JSON.stringify({ username: values.user, password }),
  });
  const body = (await response.json()) as { token: string; expireAt: string };
  await writeCachedToken(tokenCachePath(io.env['HOME']), { url, token: body.token, expireAt: body.expireAt });
  io.out(`logged in to ${url} as ${values.user} until ${body.expireAt}\n`);
}

export async function agentsCommand(args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({ args, options: COMMON });
  const { url, credential } = await context(values, io);
  const page = (await (await call(url, '/api/v1/agents?size=100', credential)).json()) as {
    data: Array<{ ruleChain: { id: string; name: string }; status: { loaded: boolean; error?: string } }>;
  };
  for (const agent of page.data) {
    const state = agent.status.loaded ? 'loaded' : `not loaded: ${agent.status.error ?? 'unknown'}`;
    io.out(`${agent.ruleChain.id}\t${agent.ruleChain.name}\t${state}\n`);
  }
}

/** Streams an agent's answer to stdout. The message is the arguments, or stdin when there are none. */
export async function chatCommand(args: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...COMMON, agent: { type: 'string', default: 'main' }, session: { type: 'string' } },
  });
  const { url, credential } = await context(values, io, true);
  const content = positionals.length > 0 ? positionals.join(' ') : (await io.readStdin()).trim();
  if (!content) throw new Error('give a message: agent-service chat [--agent ID] [--session ID] MESSAGE');
  const response = await call(url, '/api/v1/chat/completions', credential, {
    method: 'POST',
    body: JSON.stringify({
      model: values.agent,
      stream: true,
      ...(values.session ? { sessionId: values.session } : {}),
      messages: [{ role: 'user', content }],
    }),
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const next = await reader?.read();
    if (!next || next.done) break;
    buffer += next.value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end).replace(/^data: /, '');
      buffer = buffer.slice(end + 2);
      if (frame === '[DONE]') continue;
      const chunk = JSON.parse(frame) as {
        error?: string;
        choices?: Array<{ delta?: { content?: string } }>;
      };
      if (chunk.error) throw new Error(chunk.error);
      io.out(chunk.choices?.[0]?.delta?.content ?? '');
    }
  }
  io.out('\n');
}
