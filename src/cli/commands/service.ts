// `service install|uninstall|start|stop|restart|status`: run the server as a systemd unit, a user unit
// by default (no root needed) or a system unit with --system.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomic } from '../../core/atomic-write.ts';
import { CliError, usageError } from '../errors.ts';
import { loadLocalConfig } from '../server-address.ts';
import type { Context } from '../context.ts';

interface ServiceOptions {
  system?: boolean;
  name: string;
  data?: string;
  user?: string;
  dryRun?: boolean;
  start?: boolean;
}

/** A word of ExecStart, quoted when it holds spaces or quotes (systemd.service, "Command lines"). */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\])/g, '\\$1')}"`;
}

export function unitText(options: {
  name: string;
  system: boolean;
  node: string;
  script: string;
  config: string;
  data: string;
  user?: string | undefined;
}): string {
  const exec = [options.node, options.script, 'serve', '--config', options.config, '--data', options.data];
  return [
    '# Written by `agent-service service install`; remove with `agent-service service uninstall`.',
    '[Unit]',
    `Description=Agent Service (${options.name})`,
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec.map(quote).join(' ')}`,
    `WorkingDirectory=${quote(dirname(options.config))}`,
    'Environment=NODE_ENV=production',
    'Environment=NODE_OPTIONS=--max-semi-space-size=8',
    'Restart=on-failure',
    'RestartSec=5',
    ...(options.system && options.user ? [`User=${options.user}`] : []),
    '',
    '[Install]',
    `WantedBy=${options.system ? 'multi-user.target' : 'default.target'}`,
    '',
  ].join('\n');
}

function unitPath(cx: Context, options: ServiceOptions): string {
  const file = `${options.name}.service`;
  if (options.system) return join('/etc/systemd/system', file);
  const configHome = cx.io.env['XDG_CONFIG_HOME'] || join(cx.io.home, '.config');
  return join(configHome, 'systemd', 'user', file);
}

/** systemd runs when /run/systemd/system exists (sd_booted) and systemctl is installed. */
function systemdMissing(cx: Context): string | undefined {
  if (!existsSync('/run/systemd/system')) return 'systemd is not running on this machine';
  const probe = spawnSync('systemctl', ['--version'], {
    env: cx.io.env as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  if (probe.error) return 'systemctl is not installed';
  return undefined;
}

function systemctl(cx: Context, options: ServiceOptions, args: string[], inherit = false): number {
  const full = [...(options.system ? [] : ['--user']), ...args];
  const result = spawnSync('systemctl', full, {
    env: cx.io.env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    stdio: inherit ? 'inherit' : 'pipe',
  });
  if (!inherit && result.status !== 0) {
    const reason = `${result.stderr ?? ''}`.trim().split('\n')[0] || `exit code ${result.status}`;
    throw new CliError(`systemctl ${full.join(' ')} failed: ${reason}`);
  }
  return result.status ?? 1;
}

export function registerService(program: Command, cx: Context): void {
  const service = program
    .command('service')
    .description('run the server as a systemd service (a user unit, or a system unit with --system)');
  const common = (command: Command): Command =>
    command
      .option('--system', 'a system unit in /etc/systemd/system (needs root) instead of a user unit')
      .option('--name <name>', 'unit name', 'agent-service');

  common(
    service
      .command('install')
      .description('write the unit (config and data paths made absolute) and enable it')
      .option('--data <dir>', "data root (default: the config file's data.root_dir)")
      .option('--user <name>', 'with --system: the user the server runs as')
      .option('--start', 'start it now as well')
      .option('--dry-run', 'print the unit and where it would go; change nothing'),
  )
    .addHelpText(
      'after',
      '\nThe unit runs: <node> <this program> serve --config <file> --data <dir>, restarting on failure.\n' +
        'A user unit runs while you are logged in; for boot without login: loginctl enable-linger $USER\n\n' +
        'Examples:\n  agent-service service install --config ./config.yaml --start\n  sudo agent-service service install --system --user agent --config /srv/agent/config.yaml',
    )
    .action(async (options: ServiceOptions, command: Command) => {
      if (!/^[\w@.-]+$/.test(options.name)) throw usageError(`--name "${options.name}" is not a unit name`);
      const configFlag = cx.globals(command).config;
      const local = await loadLocalConfig(configFlag, cx.io.cwd, cx.io.env, cx.io.home);
      const config = local.path ?? resolve(cx.io.cwd, 'config.yaml');
      const data = options.data
        ? resolve(cx.io.cwd, options.data)
        : (local.config?.data.root_dir ?? join(dirname(config), 'data'));
      const user = options.user ?? (options.system ? cx.io.env['SUDO_USER'] : undefined);
      const text = unitText({
        name: options.name,
        system: options.system === true,
        node: cx.io.nodePath,
        script: cx.io.scriptPath,
        config,
        data,
        user,
      });
      const path = unitPath(cx, options);
      if (options.dryRun) {
        cx.note(`# would write ${path}`);
        cx.out(text);
        return;
      }
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, text, { mode: 0o644 });
      cx.ok(`wrote ${path}`);
      cx.out(
        `  runs:   ${cx.io.nodePath} ${cx.io.scriptPath} serve\n  config: ${config}${local.path ? '' : ' (written with defaults on first start)'}\n  data:   ${data}\n`,
      );
      const missing = systemdMissing(cx);
      if (missing) {
        cx.note(
          `${cx.errStyle.yellow('!')} ${missing}: the unit was written but not enabled. Run the server with: agent-service serve`,
        );
        return;
      }
      systemctl(cx, options, ['daemon-reload']);
      systemctl(cx, options, ['enable', ...(options.start ? ['--now'] : []), options.name]);
      const flag = options.system ? '--system ' : '';
      cx.ok(
        `enabled ${options.name}${options.start ? ' and started it' : `; start it with: agent-service service ${flag}start`}`,
      );
      cx.out(`  logs:   journalctl ${options.system ? '' : '--user '}-u ${options.name} -f\n`);
    });

  common(service.command('uninstall').description('stop and disable the service and remove its unit')).action(
    async (options: ServiceOptions) => {
      const path = unitPath(cx, options);
      if (!existsSync(path)) throw new CliError(`no unit at ${path}`);
      const missing = systemdMissing(cx);
      if (!missing) {
        try {
          systemctl(cx, options, ['disable', '--now', options.name]);
        } catch (error) {
          cx.note((error as Error).message);
        }
      }
      await rm(path);
      if (!missing) systemctl(cx, options, ['daemon-reload']);
      cx.ok(`removed ${path}`);
    },
  );

  for (const verb of ['start', 'stop', 'restart', 'status'] as const) {
    common(
      service
        .command(verb)
        .description(`${verb === 'status' ? 'show the state of' : verb} the service (systemctl ${verb})`),
    ).action((options: ServiceOptions) => {
      const missing = systemdMissing(cx);
      if (missing) throw new CliError(`${missing}; run the server with: agent-service serve`);
      if (!existsSync(unitPath(cx, options)))
        throw new CliError(
          `${options.name} is not installed; run: agent-service service install${options.system ? ' --system' : ''}`,
        );
      if (verb === 'status') {
        const code = systemctl(cx, options, ['status', '--no-pager', options.name], true);
        if (code !== 0)
          throw new CliError(`${options.name} is not running (systemctl status exit code ${code})`);
        return;
      }
      systemctl(cx, options, [verb, options.name]);
      cx.ok(`${options.name} ${verb === 'stop' ? 'stopped' : `${verb}ed`}`);
    });
  }
}
