// `onboard`: first run, step by step. Interactive on a terminal; with flags (and no terminal) for
// scripts. Model provider (proven by a live completion before it is saved), the admin password,
// authentication on (recommended), an optional first Telegram bot (checked before it is saved),
// the optional system service, and a health check with the web UI address at the end. It edits
// the config file directly (atomically, as the server does), so it runs before the first start.
import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { ConfigStore } from '../../config/config-store.ts';
import { discoverConfigPath, loadConfigFile, writeDefaultConfig } from '../../config/load.ts';
import { DEFAULT_ADMIN_PASSWORD, type Config } from '../../config/schema.ts';
import { hashPassword } from '../../core/secrets.ts';
import type { Context } from '../context.ts';
import { CliError, usageError } from '../errors.ts';
import { checkTelegram, healthProblem, proveProvider, type ProviderDraft } from '../onboard-steps.ts';
import { PipedLines, readSecret } from '../prompt.ts';

interface OnboardOptions {
  providerId?: string;
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  apiKeyStdin?: boolean;
  adminPassword?: string;
  adminPasswordStdin?: boolean;
  auth?: boolean;
  telegramToken?: string;
  telegramApiBase?: string;
  installService?: boolean;
  yes?: boolean;
}

/** A visible answer on a terminal (the default when the answer is empty). */
async function ask(cx: Context, question: string, fallback = ''): Promise<string> {
  cx.io.stderr.write(`${question}${fallback ? ` [${fallback}]` : ''}: `);
  const answer = await new Promise<string>((resolve) => {
    const onData = (chunk: Buffer): void => {
      cx.io.stdin.off('data', onData);
      cx.io.stdin.pause();
      resolve(chunk.toString('utf8').trim());
    };
    cx.io.stdin.on('data', onData);
    cx.io.stdin.resume();
  });
  return answer || fallback;
}

async function yesNo(cx: Context, question: string, fallback: boolean): Promise<boolean> {
  const answer = await ask(cx, `${question} (y/n)`, fallback ? 'y' : 'n');
  return /^y(es)?$/i.test(answer);
}

function uiAddress(config: Config): string {
  const host = config.server.host;
  const shown = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  return `http://${shown.includes(':') && !shown.startsWith('[') ? `[${shown}]` : shown}:${config.server.port}`;
}

export function registerOnboard(program: Command, cx: Context): void {
  program
    .command('onboard')
    .description('first run: model provider, admin password, authentication, a chat platform, the service')
    .option('--provider-id <id>', 'id of the model provider to add', 'default')
    .option('-u, --base-url <url>', 'OpenAI-compatible base URL of the provider')
    .option('-m, --model <model>', 'model name at the provider')
    .option('-k, --api-key <key>', 'API key of the provider (or --api-key-stdin)')
    .option('--api-key-stdin', 'read the provider API key from the first line of stdin')
    .option('--admin-password <password>', 'new admin password (or --admin-password-stdin)')
    .option('--admin-password-stdin', 'read the admin password from the next line of stdin')
    .option('--auth', 'require authentication (recommended)')
    .option('--no-auth', 'leave authentication off')
    .option('--telegram-token <token>', 'add a Telegram bot account with this token (checked first)')
    .option('--telegram-api-base <url>', 'Telegram Bot API origin (a proxy or self-hosted server)')
    .option(
      '--install-service',
      'install and start the systemd service (agent-service service install --start)',
    )
    .option('-y, --yes', 'no questions: use the flags only (the default when stdin is not a terminal)')
    .addHelpText(
      'after',
      '\nExample (a script):\n  printf "%s\\n%s\\n" "$OPENAI_KEY" "$ADMIN_PASSWORD" | agent-service onboard \\\n' +
        '    -u https://api.openai.com/v1 -m gpt-4o-mini --api-key-stdin --admin-password-stdin --auth',
    )
    .action(async (options: OnboardOptions, command: Command) => {
      const interactive = cx.io.stdin.isTTY === true && !options.yes;
      const piped = new PipedLines(cx.io);
      const found = await discoverConfigPath(cx.globals(command).config, cx.io.cwd, cx.io.home);
      if (!found.exists) {
        await writeDefaultConfig(found.path);
        cx.ok(`wrote a new config file: ${found.path}`);
      }
      const store = new ConfigStore(found.path, await loadConfigFile(found.path, cx.io.env), cx.io.env);

      // 1. The model provider, proven before it is saved.
      const current = store.current.models;
      const hasProvider = Object.keys(current.providers).length > 0;
      let baseUrl = options.baseUrl;
      if (!baseUrl && interactive)
        baseUrl = await ask(
          cx,
          hasProvider ? 'Add another model provider? base URL (empty: keep)' : 'Model provider base URL',
          hasProvider ? '' : 'https://api.openai.com/v1',
        );
      if (baseUrl) {
        const model = options.model ?? (interactive ? await ask(cx, 'Model', 'gpt-4o-mini') : undefined);
        if (!model) throw usageError('--model is needed with --base-url');
        let apiKey = options.apiKey;
        if (!apiKey && options.apiKeyStdin) apiKey = await readSecret(cx.io, 'API key: ', piped);
        else if (!apiKey && interactive)
          apiKey = (await readSecret(cx.io, 'API key (empty: none): ', piped).catch(() => '')) || undefined;
        const draft: ProviderDraft = { id: options.providerId ?? 'default', baseUrl, model, apiKey };
        cx.note(`checking ${baseUrl} with a live completion...`);
        const proof = await proveProvider(draft);
        if (!proof.ok) throw new CliError(`the provider did not answer; nothing was saved: ${proof.error}`);
        cx.ok(`the model answered in ${proof.latencyMs} ms: "${proof.reply.slice(0, 80)}"`);
        await store.update((editor, config) => {
          editor.set(['models', 'providers', draft.id], {
            base_url: draft.baseUrl,
            model: draft.model,
            ...(draft.apiKey ? { api_key: draft.apiKey } : {}),
          });
          if (!config.models.default_provider || !hasProvider)
            editor.set(['models', 'default_provider'], draft.id);
        });
        cx.ok(`provider "${draft.id}" saved and made the default`);
      } else if (!hasProvider) {
        cx.note(
          'no model provider: agents answer with the offline demo model (add one later: agent-service providers add)',
        );
      }

      // 2. The admin password.
      let password = options.adminPassword;
      if (!password && options.adminPasswordStdin)
        password = await readSecret(cx.io, 'Admin password: ', piped);
      else if (!password && interactive) {
        password = await readSecret(
          cx.io,
          'New admin password (at least 8 characters, empty: keep): ',
          piped,
        ).catch(() => '');
      }
      if (password) {
        if (password.length < 8 || password.includes(':'))
          throw usageError('the admin password needs at least 8 characters and no ":"');
        const hashed = await hashPassword(password);
        await store.update((editor, config) => {
          if (editor.get(['security', 'users']) === undefined)
            editor.set(['security', 'users'], { ...config.security.users });
          const raw = editor.get(['security', 'users', 'admin']);
          const key = typeof raw === 'string' && raw.includes(':') ? raw.slice(raw.indexOf(':')) : '';
          editor.set(['security', 'users', 'admin'], `${hashed}${key}`);
        });
        cx.ok('admin password set');
      }
      const admin = store.current.security.users['admin'];
      const defaultPassword = admin === undefined || admin.split(':')[0] === DEFAULT_ADMIN_PASSWORD;

      // 3. Authentication.
      let auth = options.auth;
      if (auth === undefined && interactive) {
        cx.note(
          'Recommended: require sign-in. Without it, anyone who can reach the server can use and change it.',
        );
        auth = await yesNo(cx, 'Require authentication?', true);
      }
      if (auth === true) {
        if (defaultPassword)
          throw usageError('authentication needs an admin password first: give --admin-password');
        await store.update((editor) => editor.set(['security', 'requireAuth'], true));
        cx.ok('authentication is required from now on');
      } else if (auth === false) {
        await store.update((editor) => editor.set(['security', 'requireAuth'], false));
        cx.note('authentication stays off: keep the server on a trusted network');
      }

      // 4. A first chat platform account (Telegram), checked before it is saved.
      let token = options.telegramToken;
      if (!token && interactive && (await yesNo(cx, 'Add a Telegram bot now?', false)))
        token = await readSecret(cx.io, 'Telegram bot token (from @BotFather): ', piped);
      if (token) {
        const check = await checkTelegram(token, options.telegramApiBase);
        if (!check.ok) throw new CliError(`${check.error}; the account was not saved`);
        await store.update((editor) => {
          editor.set(['channels', 'telegram', 'enabled'], true);
          editor.set(['channels', 'telegram', 'accounts', 'bot1'], {
            app_secret: token,
            dm_policy: 'pairing',
            ...(options.telegramApiBase ? { api_base: options.telegramApiBase } : {}),
          });
        });
        cx.ok(
          'Telegram bot connected and saved as account "bot1" (dm_policy pairing: approve new people with agent-service pairing approve <code>)',
        );
      }

      // 5. The system service.
      const install =
        options.installService ??
        (interactive ? await yesNo(cx, 'Install the system service (systemd)?', false) : false);
      if (install) {
        const result = spawnSync(
          cx.io.nodePath,
          [cx.io.scriptPath, 'service', 'install', '--start', '--config', found.path],
          {
            stdio: 'inherit',
            env: cx.io.env as NodeJS.ProcessEnv,
          },
        );
        if (result.status !== 0)
          cx.note('the service was not installed; run: agent-service service install --start');
      }

      // 6. Health check and the address: the server --url or SERVICE_URL names, else the config's.
      const named = cx.globals(command).url ?? cx.io.env['SERVICE_URL'];
      const url = named ? named.replace(/\/+$/, '') : uiAddress(store.current);
      const problem = await healthProblem(url);
      if (problem === undefined) {
        cx.ok(`server at ${url} is healthy`);
        cx.note('a running server picks up the changes with: agent-service config reload');
      } else
        cx.note(`server at ${url}: ${problem}; start it with: agent-service serve --config ${found.path}`);
      cx.out(`Web UI: ${url}/ui/\n`);
    });
}
