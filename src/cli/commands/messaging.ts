// `message send|channels`, `channels list`, `bindings list|set`: channels and routing.
import type { Command } from 'commander';
import { usageError } from '../errors.ts';
import { enc, withJson, type Context } from '../context.ts';
import type { Binding } from '../../resources/bindings/bindings.schema.ts';
import type { ChannelsView, PlatformView } from '../../resources/channels/channels.schema.ts';
import { registerChannelAccounts } from './channel-accounts.ts';

type Platform = NonNullable<Binding['match']['channel']>;

function channelRows(platforms: ChannelsView['platforms']): string[][] {
  return Object.entries(platforms).flatMap(([platform, config]) => {
    const accounts = Object.entries(config.accounts);
    if (accounts.length === 0) return [[platform, '', config.enabled ? 'enabled' : 'disabled', '']];
    return accounts.map(([id, account]) => [
      platform,
      id,
      config.enabled && account.enabled !== false ? 'enabled' : 'disabled',
      account.status
        ? `${account.status.state}${account.status.error ? `: ${account.status.error}` : ''}`
        : '',
    ]);
  });
}

function describeMatch(match: Binding['match']): string {
  if (match.default) return 'default';
  return [match.channel, match.accountId && `account ${match.accountId}`, match.peer && `peer ${match.peer}`]
    .filter(Boolean)
    .join(', ');
}

function sameMatch(a: Binding['match'], b: Binding['match']): boolean {
  return (
    Boolean(a.default) === Boolean(b.default) &&
    a.channel === b.channel &&
    a.accountId === b.accountId &&
    a.peer === b.peer
  );
}

export function registerMessaging(program: Command, cx: Context): void {
  const listChannels = async (platform: string | undefined, json: boolean | undefined, command: Command) => {
    const api = await cx.api(command);
    const platforms = platform
      ? { [platform]: await api.get<PlatformView>(`/channels/${enc(platform)}`) }
      : (await api.get<ChannelsView>('/channels')).platforms;
    cx.print(json, platforms, () =>
      cx.table(['PLATFORM', 'ACCOUNT', 'STATE', 'CONNECTION'], channelRows(platforms)),
    );
  };

  const message = program.command('message').description('send messages through a channel account');
  message
    .command('send')
    .description('send a text, an image or a file to a chat')
    .argument('<chat_id>', "chat to send to (the platform's chat, user or channel id)")
    .requiredOption('-p, --platform <platform>', 'feishu, dingtalk, wecom, telegram, slack, discord, ...')
    .option('-a, --account <id>', "channel account (default: the platform's first)")
    .option('-m, --message <text>', 'text to send')
    .option('-i, --image <agent:path>', "image from an agent's workspace, e.g. main:charts/q3.png")
    .option('-f, --file <agent:path>', "file from an agent's workspace, e.g. main:report.pdf")
    .option('--file-name <name>', 'file name shown to the recipient (with -f)')
    .option('--key <key>', 'with -i or -f: a media key the platform already holds, instead of a path')
    .addHelpText(
      'after',
      '\nExamples:\n  agent-service message send oc_123 -p feishu -m "Build finished"\n  agent-service message send 42 -p telegram -f main:report.pdf',
    )
    .action(
      async (
        chatId: string,
        options: {
          platform: string;
          account?: string;
          message?: string;
          image?: string;
          file?: string;
          fileName?: string;
          key?: string;
        },
        command: Command,
      ) => {
        const given = [options.message, options.image, options.file].filter((value) => value !== undefined);
        if (given.length !== 1) throw usageError('give exactly one of -m TEXT, -i IMAGE or -f FILE');
        const account = options.account ? { accountId: options.account } : {};
        const base = `/channels/${enc(options.platform)}`;
        let path: string;
        let body: Record<string, unknown>;
        if (options.message !== undefined) {
          path = `${base}/send`;
          body = { chatId, message: options.message, ...account };
        } else if (options.image !== undefined) {
          path = `${base}/send-image`;
          body = {
            chatId,
            ...(options.key ? { imageKey: options.key } : { imagePath: options.image }),
            ...account,
          };
        } else {
          path = `${base}/send-file`;
          body = {
            chatId,
            ...(options.key ? { fileKey: options.key } : { filePath: options.file }),
            ...(options.fileName ? { fileName: options.fileName } : {}),
            ...account,
          };
        }
        const api = await cx.api(command);
        const answer = await api.json<{ messageId?: string }>('POST', path, { body });
        cx.ok(
          `sent to ${chatId} on ${options.platform}${answer.messageId ? ` (message ${answer.messageId})` : ''}`,
        );
      },
    );
  // `message channels` and `channels list` are one command under two names.
  const channelList = (command: Command): void => {
    withJson(command.option('-p, --platform <platform>', 'only this platform')).action(
      (options: { platform?: string; json?: boolean }, run: Command) =>
        listChannels(options.platform, options.json, run),
    );
  };
  channelList(message.command('channels').description('list channel accounts'));

  const channels = program.command('channels').description('channel platforms and accounts');
  registerChannelAccounts(channels, cx);
  channelList(
    channels.command('list').alias('ls').description('list platforms, accounts and their connection state'),
  );

  const bindings = program.command('bindings').description('which agent answers which channel');
  withJson(bindings.command('list').alias('ls').description('list bindings (most specific wins)')).action(
    async (options: { json?: boolean }, command: Command) => {
      const api = await cx.api(command);
      const { bindings: list } = await api.get<{ bindings: Binding[] }>('/bindings');
      cx.print(options.json, list, () =>
        cx.table(
          ['AGENT', 'MATCH'],
          list.map((b) => [b.agentId, describeMatch(b.match)]),
        ),
      );
    },
  );
  bindings
    .command('set')
    .description('route a match to an agent (replaces the binding with the same match)')
    .argument('<agent>', 'agent id')
    .option('-p, --channel <platform>', 'match a platform')
    .option('-a, --account <id>', 'match a channel account')
    .option('--peer <id>', 'match one chat or user')
    .option('--default', 'the binding used when nothing else matches')
    .option('--remove', 'remove the binding with this match instead')
    .addHelpText(
      'after',
      '\nExamples:\n  agent-service bindings set support -p feishu -a helpdesk\n  agent-service bindings set main --default',
    )
    .action(
      async (
        agent: string,
        options: { channel?: string; account?: string; peer?: string; default?: boolean; remove?: boolean },
        command: Command,
      ) => {
        const match: Binding['match'] = {
          ...(options.default ? { default: true } : {}),
          // The server checks the platform name (a 400 names the known ones).
          ...(options.channel ? { channel: options.channel as Platform } : {}),
          ...(options.account ? { accountId: options.account } : {}),
          ...(options.peer ? { peer: options.peer } : {}),
        };
        if (Object.keys(match).length === 0)
          throw usageError('give a match: --default, -p PLATFORM, -a ACCOUNT or --peer ID');
        const api = await cx.api(command);
        const { bindings: list } = await api.get<{ bindings: Binding[] }>('/bindings');
        const kept = list.filter((binding) => !sameMatch(binding.match, match));
        if (options.remove && kept.length === list.length)
          throw usageError(`no binding matches ${describeMatch(match)}`);
        const next = options.remove ? kept : [...kept, { agentId: agent, match }];
        await api.json('PUT', '/bindings', { body: { bindings: next } });
        cx.ok(
          options.remove ? `binding ${describeMatch(match)} removed` : `${describeMatch(match)} -> ${agent}`,
        );
      },
    );
}
