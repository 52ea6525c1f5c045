// `sessions list|show|clear -a <agent>`: an agent's conversations. A session is named as the chat
// named it (`agent -s <id>`), with the same credential, so the server resolves it the same way: an
// api account's ids are its own. A full key (agent:...:channel:...) names any session.
import type { Command } from 'commander';
import { enc, withJson, type Context } from '../context.ts';
import { transcriptLines, type SessionMessage } from '../transcript.ts';
import type { SessionView } from '../../resources/sessions/sessions.schema.ts';

export function registerSessions(program: Command, cx: Context): void {
  const sessions = program.command('sessions').description("an agent's conversations: list, show, clear");
  const agentOption = (command: Command): Command => command.option('-a, --agent <id>', 'agent id', 'main');
  const path = (agent: string, session?: string) =>
    `/agents/${enc(agent)}/sessions${session === undefined ? '' : `/${enc(session)}`}`;

  withJson(
    agentOption(
      sessions
        .command('list')
        .alias('ls')
        .description('list conversations, newest first')
        .option('--channel <platform>', 'only conversations of this channel (api, telegram, cron, ...)'),
    ),
  ).action(async (options: { agent: string; channel?: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command, true);
    const { data } = await api.all<SessionView>(
      path(options.agent),
      options.channel ? { channel: options.channel } : {},
    );
    cx.print(options.json, data, () =>
      data.length === 0
        ? `no conversations of ${options.agent}\n`
        : cx.table(
            ['SESSION', 'CHANNEL', 'TITLE', 'MESSAGES', 'UPDATED'],
            data.map((session) => [
              session.channel === 'api' ? session.sessionId : session.key,
              session.channel,
              session.title ?? session.preview ?? '',
              String(session.messageCount),
              session.updatedAt,
            ]),
          ),
    );
  });

  withJson(
    agentOption(
      sessions
        .command('show')
        .description("print a conversation's messages")
        .argument('<session>', "the chat's session id (agent -s), or a full session key"),
    ),
  ).action(async (session: string, options: { agent: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command, true);
    const { data } = await api.all<SessionMessage>(`${path(options.agent, session)}/messages`);
    cx.print(options.json, data, () => transcriptLines(data, cx.style.bold));
  });

  agentOption(
    sessions
      .command('clear')
      .alias('rm')
      .description('forget a conversation (exit 1 when there is none)')
      .argument('[session]', "the chat's session id (agent -s), or a full session key")
      .option('-s, --session <id>', 'the same as the argument'),
  )
    .addHelpText('after', '\nExample:\n  agent-service sessions clear -a main cli-1a2b3c4d')
    .action(
      async (given: string | undefined, options: { agent: string; session?: string }, command: Command) => {
        const session = given ?? options.session;
        if (!session) command.error('error: give the session: sessions clear <session>', { exitCode: 2 });
        const api = await cx.api(command, true);
        await api.send('DELETE', path(options.agent, session));
        cx.ok(`conversation ${session} of ${options.agent} cleared`);
      },
    );
}
