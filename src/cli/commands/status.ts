// `version`, `status` and `doctor`: what runs, and what is wrong with it.
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { parseUserEntry } from '../../auth/users.ts';
import { DEFAULT_ADMIN_PASSWORD, type Config } from '../../config/schema.ts';
import type { ApiClient } from '../client.ts';
import { CliError } from '../errors.ts';
import { withJson, type Context } from '../context.ts';
import { discoverConfigPath } from '../../config/load.ts';
import { dataRootChecks, movedKeys, type Check } from './doctor-fix.ts';
import { readFile } from 'node:fs/promises';

interface AgentItem {
  ruleChain: { id: string; name: string };
  status?: { loaded: boolean; error?: string };
}
interface ChannelsAnswer {
  platforms: Record<
    string,
    {
      enabled: boolean;
      accounts: Record<string, { enabled?: boolean; status?: { state: string; error?: string } }>;
    }
  >;
}

/** One check per chat platform account: connected (its credential works), connecting, or why not. */
async function channelChecks(api: ApiClient): Promise<Check[]> {
  const answer = await api.get<ChannelsAnswer>('/channels').catch((error: Error) => error);
  if (answer instanceof Error) return [{ check: 'channels', status: 'fail', detail: answer.message }];
  const checks: Check[] = [];
  for (const [platform, section] of Object.entries(answer.platforms)) {
    for (const [id, account] of Object.entries(section.accounts)) {
      const check = `channel ${platform}/${id}`;
      const state = account.status?.state ?? 'unknown';
      if (!section.enabled || account.enabled === false || state === 'disabled')
        checks.push({ check, status: 'ok', detail: 'disabled' });
      else if (state === 'connected') checks.push({ check, status: 'ok', detail: 'connected' });
      else if (state === 'connecting')
        checks.push({
          check,
          status: 'warn',
          detail: `still connecting${account.status?.error ? `: ${account.status.error}` : ''}`,
        });
      else checks.push({ check, status: 'fail', detail: account.status?.error ?? state });
    }
  }
  return checks;
}

async function serverVersion(api: ApiClient): Promise<string | undefined> {
  const document = await api.get<{ info?: { version?: string } }>('/openapi.json').catch(() => undefined);
  return document?.info?.version;
}

async function status(cx: Context, api: ApiClient) {
  const started = Date.now();
  await api.send('GET', '/health');
  const latencyMs = Date.now() - started;
  const [version, agents, channels] = await Promise.all([
    serverVersion(api),
    api.all<AgentItem>('/agents').catch((error: Error) => error),
    api.get<ChannelsAnswer>('/channels').catch((error: Error) => error),
  ]);
  const accounts =
    channels instanceof Error
      ? undefined
      : Object.entries(channels.platforms).flatMap(([platform, config]) =>
          Object.entries(config.accounts).map(([id, account]) => ({
            platform,
            id,
            state: account.status?.state ?? (config.enabled ? 'unknown' : 'disabled'),
          })),
        );
  return {
    url: api.url,
    healthy: true,
    latencyMs,
    version: version ?? null,
    cliVersion: cx.io.version,
    agents:
      agents instanceof Error
        ? { error: agents.message }
        : {
            total: agents.total,
            loaded: agents.data.filter((agent) => agent.status?.loaded !== false).length,
            notLoaded: agents.data
              .filter((agent) => agent.status?.loaded === false)
              .map((agent) => ({ id: agent.ruleChain.id, error: agent.status?.error ?? 'not loaded' })),
          },
    channels:
      accounts === undefined
        ? { error: (channels as Error).message }
        : { connected: accounts.filter((account) => account.state === 'connected').length, accounts },
  };
}


async function probeProvider(id: string, provider: Config['models']['providers'][string]): Promise<Check> {
  const url = `${provider.base_url.replace(/\/+$/, '')}/models`;
  const headers: Record<string, string> = provider.api_key
    ? { authorization: `Bearer ${provider.api_key}` }
    : {};
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
    const host = new URL(url).host;
    if (response.ok) return { check: `provider ${id}`, status: 'ok', detail: `${host} answers` };
    if (response.status === 401 || response.status === 403)
      return {
        check: `provider ${id}`,
        status: 'fail',
        detail: `${host} refused the API key (${response.status})`,
      };
    return {
      check: `provider ${id}`,
      status: 'warn',
      detail: `${host} answered ${response.status} to GET /models`,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    return {
      check: `provider ${id}`,
      status: 'fail',
      detail: `cannot reach ${provider.base_url} (${cause})`,
    };
  }
}

async function doctor(cx: Context, command: Command, fix: boolean): Promise<Check[]> {
  const checks: Check[] = [];
  // Moved keys first: the file may not load until they are renamed.
  const found = await discoverConfigPath(cx.globals(command).config, cx.io.cwd, cx.io.home);
  if (found.exists) checks.push(await movedKeys(found.path, fix, (path) => readFile(path, 'utf8')));
  const api = await cx.api(command);
  const { config, configPath } = api.server;
  if (config) checks.push(...(await dataRootChecks(config, fix)));
  if (config) checks.push({ check: 'config file', status: 'ok', detail: `${configPath} is valid` });
  else if (configPath)
    checks.push({ check: 'config file', status: 'fail', detail: `${configPath} cannot be read` });
  else
    checks.push({
      check: 'config file',
      status: 'warn',
      detail: 'none found here; the server writes ./config.yaml on first start (or pass --config)',
    });
  if (config) {
    const admin = config.security.users['admin'];
    if (admin !== undefined && parseUserEntry('admin', admin).password === DEFAULT_ADMIN_PASSWORD)
      checks.push({
        check: 'default password',
        status: config.security.requireAuth ? 'fail' : 'warn',
        detail: 'user admin still has the default password; change it with: agent-service password',
      });
    else checks.push({ check: 'default password', status: 'ok', detail: 'not in use' });
    const host = config.server.host;
    const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
    if (!loopback && !config.security.requireAuth)
      checks.push({
        check: 'authentication',
        status: 'fail',
        detail: `listening on ${host} with security.requireAuth: false; anyone who can reach it can use every API`,
      });
    else
      checks.push({
        check: 'authentication',
        status: 'ok',
        detail: config.security.requireAuth ? 'required' : 'off, loopback only',
      });
  }
  try {
    await api.send('GET', '/health');
    checks.push({
      check: 'server',
      status: 'ok',
      detail: `${api.url} is up (address from ${api.server.source})`,
    });
    try {
      await api.get('/config');
      checks.push({
        check: 'credential',
        status: 'ok',
        detail: api.credential ? `${api.credential.source} works` : 'none needed',
      });
      checks.push(...(await channelChecks(api)));
    } catch (error) {
      checks.push({ check: 'credential', status: 'fail', detail: (error as Error).message });
    }
  } catch (error) {
    checks.push({ check: 'server', status: 'fail', detail: (error as Error).message });
  }
  const providers = Object.entries(config?.models.providers ?? {});
  if (config && providers.length === 0)
    checks.push({
      check: 'providers',
      status: 'warn',
      detail: 'none configured: agents answer with the demo model; add one with: agent-service providers add',
    });
  checks.push(...(await Promise.all(providers.map(([id, provider]) => probeProvider(id, provider)))));
  return checks;
}

/** Opens `url` in the desktop's browser; false when this system has no opener. */
function openInBrowser(url: string): Promise<boolean> {
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open']
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""']
        : ['xdg-open'];
  return new Promise((resolve) => {
    const child = spawn(command ?? 'xdg-open', [...args, url], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

export function registerStatus(program: Command, cx: Context): void {
  program
    .command('dashboard')
    .description('print the address of the web UI (--open also opens it in a browser)')
    .option('--open', 'open it in the default browser')
    .action(async (options: { open?: boolean }, command: Command) => {
      const server = await cx.server(command);
      const url = `${server.url}/ui/`;
      cx.out(`${url}\n`);
      if (options.open && !(await openInBrowser(url)))
        cx.note('no browser could be opened here (no xdg-open); open the address above');
    });

  withJson(program.command('version').description('print the version of this program')).action(
    (options: { json?: boolean }) =>
      cx.print(
        options.json,
        { version: cx.io.version, node: process.versions.node },
        () => `agent-service ${cx.io.version}\n`,
      ),
  );

  withJson(
    program
      .command('status')
      .description('server health, version, agents loaded and channels connected')
      .addHelpText('after', '\nExample:\n  agent-service status --url 127.0.0.1:9601'),
  ).action(async (options: { json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const result = await cx.spin(`checking ${api.url}`, status(cx, api));
    const s = cx.style;
    cx.print(options.json, result, () => {
      const lines = [
        `${s.green('●')} ${s.bold(result.url)} is up (${result.latencyMs} ms), version ${result.version ?? 'unknown'}`,
      ];
      const agents = result.agents;
      if ('error' in agents) lines.push(`  agents:   ${s.yellow(agents.error ?? '')}`);
      else {
        lines.push(`  agents:   ${agents.loaded} of ${agents.total} loaded`);
        for (const broken of agents.notLoaded) lines.push(`            ${s.red(broken.id)}: ${broken.error}`);
      }
      const channels = result.channels;
      if ('error' in channels) lines.push(`  channels: ${s.yellow(channels.error ?? '')}`);
      else {
        lines.push(`  channels: ${channels.connected} of ${channels.accounts.length} accounts connected`);
        for (const account of channels.accounts)
          lines.push(`            ${account.platform}/${account.id}: ${account.state}`);
      }
      return `${lines.join('\n')}\n`;
    });
  });

  withJson(
    program
      .command('doctor')
      .description(
        'check the config file, the default password, the server, the credential, the chat platform accounts and the providers',
      )
      .option(
        '--fix',
        'repair what can be: config keys that moved, file modes of the data root and secrets, a stale lock, a missing default agent',
      ),
  ).action(async (options: { json?: boolean; fix?: boolean }, command: Command) => {
    const checks = await cx.spin('checking', doctor(cx, command, options.fix === true));
    const s = cx.style;
    const mark = { ok: s.green('✓'), warn: s.yellow('!'), fail: s.red('✗') };
    cx.print(options.json, checks, () =>
      checks
        .map((check) => `${mark[check.status]} ${check.check}: ${check.fixed ? `${s.green('fixed')}: ` : ''}${check.detail}\n`)
        .join(''),
    );
    const failed = checks.filter((check) => check.status === 'fail').length;
    if (failed > 0) throw new CliError(`${failed} check${failed === 1 ? '' : 's'} failed`);
  });
}
