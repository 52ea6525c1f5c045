// `login`, `logout`, `api-key show|rotate`, `password`: the user's credentials.
import type { Command } from 'commander';
import { ApiClient } from '../client.ts';
import { findCredential, readCachedToken, removeCachedToken, saveCachedToken } from '../credentials.ts';
import { CliError, usageError } from '../errors.ts';
import { PipedLines, confirmOrYes, readSecret } from '../prompt.ts';
import { withJson, type Context } from '../context.ts';
import type { ApiKeyAnswer, LoginAnswer } from '../../resources/auth/auth.schema.ts';

/** The JWT endpoints need a login; an API key from SERVICE_API_KEY would be refused. */
async function loginClient(cx: Context, command: Command): Promise<ApiClient> {
  const server = await cx.server(command);
  const credential = await findCredential({
    env: {},
    config: undefined,
    url: server.url,
    tokenPath: cx.tokenPath,
    forChat: false,
  });
  if (!credential) throw new CliError(`not logged in to ${server.url}; run: agent-service login`);
  return new ApiClient(server, credential);
}

export function registerAuth(program: Command, cx: Context): void {
  program
    .command('login')
    .description(
      'log in and keep the token for this server (password prompted with echo off, or read from stdin)',
    )
    .option('-u, --user <name>', 'user name', 'admin')
    .addHelpText(
      'after',
      '\nExamples:\n  agent-service login --url 127.0.0.1:9601\n  printf "%s\\n" "$PASSWORD" | agent-service login -u admin',
    )
    .action(async (options: { user: string }, command: Command) => {
      const server = await cx.server(command);
      const password = await readSecret(
        cx.io,
        `Password for ${options.user} at ${server.url}: `,
        new PipedLines(cx.io),
      );
      const api = new ApiClient(server, undefined);
      const answer = await api.json<LoginAnswer>('POST', '/auth/login', {
        body: { username: options.user, password },
      });
      await saveCachedToken(cx.tokenPath, server.url, {
        token: answer.token,
        expireAt: answer.expireAt,
        user: options.user,
      });
      cx.ok(`logged in to ${server.url} as ${options.user} until ${answer.expireAt}`);
    });

  program
    .command('logout')
    .description('forget the login kept for this server')
    .action(async (_options: unknown, command: Command) => {
      const server = await cx.server(command);
      const removed = await removeCachedToken(cx.tokenPath, server.url);
      cx.ok(removed ? `logged out of ${server.url}` : `no login kept for ${server.url}`);
    });

  const apiKey = program.command('api-key').description('your API key (needs a login)');
  withJson(apiKey.command('show').description('print your API key')).action(
    async (options: { json?: boolean }, command: Command) => {
      const api = await loginClient(cx, command);
      const answer = await api.get<ApiKeyAnswer>('/auth/api-key');
      cx.print(options.json, answer, () => `${answer.apiKey}\n`);
    },
  );
  withJson(
    apiKey
      .command('rotate')
      .description('make a new API key; the old one stops working')
      .option('-y, --yes', 'do not ask (needed when stdin is not a terminal)'),
  ).action(async (options: { json?: boolean; yes?: boolean }, command: Command) => {
    const question = 'Make a new API key? The current one stops working at once.';
    if (!(await confirmOrYes(cx.io, options.yes, question, 'rotating the API key'))) {
      cx.note('not rotated: the current key still works');
      return;
    }
    const api = await loginClient(cx, command);
    const answer = await api.json<ApiKeyAnswer>('POST', '/auth/api-key');
    cx.print(options.json, answer, () => `${answer.apiKey}\n`);
  });

  program
    .command('password')
    .description('change your password (prompted with echo off; piped: old and new on two lines)')
    .action(async (_options: unknown, command: Command) => {
      const api = await loginClient(cx, command);
      const piped = new PipedLines(cx.io);
      const oldPassword = await readSecret(cx.io, 'Current password: ', piped);
      const newPassword = await readSecret(cx.io, 'New password: ', piped);
      if (cx.io.stdin.isTTY && (await readSecret(cx.io, 'New password again: ', piped)) !== newPassword)
        throw usageError('the new passwords differ');
      await api.json('PUT', '/auth/password', { body: { oldPassword, newPassword } });
      // A new password ends every token of the user, this one too: log in again with it.
      const user = (await readCachedToken(cx.tokenPath, api.url))?.user ?? 'admin';
      const fresh = await new ApiClient(api.server, undefined).json<{ token: string; expireAt: string }>(
        'POST',
        '/auth/login',
        { body: { username: user, password: newPassword } },
      );
      await saveCachedToken(cx.tokenPath, api.url, { token: fresh.token, expireAt: fresh.expireAt, user });
      cx.ok(`password of ${user} changed; other logins of ${user} have ended`);
    });
}
