// `channels add|set|remove|status`: chat platform accounts over the channels REST API
// (/channels/{platform}/accounts). `status --probe` waits for each enabled account to connect.
import { InvalidArgumentError, type Command } from 'commander';
import type { ApiClient } from '../client.ts';
import { CliError } from '../errors.ts';
import { enc, withJson, type Context } from '../context.ts';
import type { ChannelsView, CreatedAccountView } from '../../resources/channels/channels.schema.ts';

const LISTS = new Set(['allow_from']);

/** `key=value`: true/false become booleans, allow_from a comma-separated list. */
function collectField(text: string, previous: Record<string, unknown> = {}): Record<string, unknown> {
  const at = text.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`"${text}" is not key=value`);
  const key = text.slice(0, at).trim().replace(/-/g, '_');
  const raw = text.slice(at + 1);
  const value: unknown = LISTS.has(key)
    ? raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : raw === 'true' || raw === 'false'
      ? raw === 'true'
      : raw;
  return { ...previous, [key]: value };
}

function accountFields(options: {
  name?: string;
  agent?: string;
  disabled?: boolean;
  set?: Record<string, unknown>;
}) {
  return {
    ...(options.name ? { name: options.name } : {}),
    ...(options.agent ? { agent_id: options.agent } : {}),
    ...(options.disabled ? { enabled: false } : {}),
    ...options.set,
  };
}

interface Row {
  platform: string;
  id: string;
  state: string;
  error?: string;
}

function rows(answer: ChannelsView): Row[] {
  return Object.entries(answer.platforms).flatMap(([platform, section]) =>
    Object.entries(section.accounts).map(([id, account]) => {
      const state =
        !section.enabled || account.enabled === false ? 'disabled' : (account.status?.state ?? 'unknown');
      return { platform, id, state, ...(account.status?.error ? { error: account.status.error } : {}) };
    }),
  );
}

/** Polls until no enabled account is still connecting, or the time is up. */
async function probe(api: ApiClient, timeoutMs: number): Promise<Row[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = rows(await api.get<ChannelsView>('/channels'));
    if (!current.some((row) => row.state === 'connecting') || Date.now() >= deadline) return current;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function registerChannelAccounts(channels: Command, cx: Context): void {
  const fieldOptions = (command: Command): Command =>
    command
      .option('-n, --name <name>', 'display name')
      .option('-a, --agent <id>', 'the agent that answers on this account (agent_id)')
      .option(
        '-s, --set <key=value>',
        'any account field (app_id, app_secret, token, dm_policy, allow_from=a,b, mode...); repeatable',
        collectField,
      );

  fieldOptions(
    channels
      .command('add')
      .description('add an account to a platform (feishu, dingtalk, wecom, telegram, slack, discord, api)')
      .argument('<platform>', 'the platform')
      .argument('<id>', 'the account id')
      .option('--disabled', 'add it switched off'),
  )
    .addHelpText(
      'after',
      '\nExample:\n  agent-service channels add telegram support -s token=123:ABC -a assistant',
    )
    .action(
      async (
        platform: string,
        id: string,
        options: { name?: string; agent?: string; disabled?: boolean; set?: Record<string, unknown> },
        command: Command,
      ) => {
        const api = await cx.api(command);
        const created = await api.json<CreatedAccountView>('POST', `/channels/${enc(platform)}/accounts`, {
          body: { id, ...accountFields(options) },
        });
        cx.ok(`added ${platform}/${id}`);
        if (created.apiKey) cx.out(`API key (shown once): ${created.apiKey}\n`);
      },
    );

  fieldOptions(
    channels
      .command('set')
      .description("change an account's fields (only those given)")
      .argument('<platform>', 'the platform')
      .argument('<id>', 'the account id')
      .option('--enable', 'switch it on')
      .option('--disable', 'switch it off'),
  ).action(
    async (
      platform: string,
      id: string,
      options: {
        name?: string;
        agent?: string;
        enable?: boolean;
        disable?: boolean;
        set?: Record<string, unknown>;
      },
      command: Command,
    ) => {
      if (options.enable && options.disable) throw new CliError('--enable and --disable together', 2);
      const body = {
        ...accountFields(options),
        ...(options.enable ? { enabled: true } : {}),
        ...(options.disable ? { enabled: false } : {}),
      };
      if (Object.keys(body).length === 0)
        throw new CliError('nothing to change: give --name, --agent, --set or --enable/--disable', 2);
      const api = await cx.api(command);
      await api.json('PUT', `/channels/${enc(platform)}/accounts/${enc(id)}`, { body });
      cx.ok(`updated ${platform}/${id}`);
    },
  );

  channels
    .command('remove')
    .alias('rm')
    .description('remove an account (it disconnects at once)')
    .argument('<platform>', 'the platform')
    .argument('<id>', 'the account id')
    .action(async (platform: string, id: string, _options: unknown, command: Command) => {
      const api = await cx.api(command);
      await api.json('DELETE', `/channels/${enc(platform)}/accounts/${enc(id)}`);
      cx.ok(`removed ${platform}/${id}`);
    });

  withJson(
    channels
      .command('status')
      .description("each account's connection state; --probe waits for each enabled account to connect")
      .option('--probe', 'wait until every enabled account has connected or failed; exit 1 if any failed')
      .option(
        '--timeout <ms>',
        'how long --probe waits (default 45000: a long-polling account connects when its first poll returns)',
        (value) => {
          const number = Number(value);
          if (!Number.isInteger(number) || number < 0 || number > 600_000)
            throw new InvalidArgumentError('a whole number of ms from 0 to 600000');
          return number;
        },
      ),
  ).action(async (options: { probe?: boolean; timeout?: number; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const list = options.probe
      ? await cx.spin('probing the accounts', probe(api, options.timeout ?? 45_000))
      : rows(await api.get<ChannelsView>('/channels'));
    const s = cx.style;
    cx.print(options.json, list, () =>
      cx.table(
        ['PLATFORM', 'ACCOUNT', 'STATE', 'ERROR'],
        list.map((row) => [
          row.platform,
          row.id,
          row.state === 'connected'
            ? s.green(row.state)
            : row.state === 'error'
              ? s.red(row.state)
              : row.state,
          row.error ?? '',
        ]),
      ),
    );
    const failed = options.probe
      ? list.filter((row) => row.state === 'error' || row.state === 'connecting')
      : [];
    if (failed.length > 0)
      throw new CliError(`${failed.map((row) => `${row.platform}/${row.id}`).join(', ')} did not connect`);
  });
}
