// `pairing list|approve <code>|reject <code>`: DM pairing requests of channel accounts with
// dm_policy pairing. A sender the bot does not know gets a code; approving it adds the sender to
// the account's allow_from.
import type { Command } from 'commander';
import { enc, withJson, type Context } from '../context.ts';
import type { PairingDecision, PairingList } from '../../resources/pairing/pairing.schema.ts';

export function registerPairing(program: Command, cx: Context): void {
  const pairing = program
    .command('pairing')
    .description('DM pairing requests (dm_policy pairing): list, approve, reject');

  withJson(pairing.command('list').alias('ls').description('pending pairing requests, oldest first')).action(
    async (options: { json?: boolean }, command: Command) => {
      const api = await cx.api(command);
      const { data } = await api.get<PairingList>('/pairing');
      cx.print(options.json, data, () =>
        data.length === 0
          ? 'no pending pairing requests\n'
          : cx.table(
              ['CODE', 'CHANNEL', 'ACCOUNT', 'SENDER', 'EXPIRES'],
              data.map((request) => [
                request.code,
                request.platform,
                request.accountId,
                request.senderId,
                request.expiresAt,
              ]),
            ),
      );
    },
  );

  for (const [verb, text] of [
    ['approve', "let the sender chat: it is added to the account's allow_from"],
    ['reject', 'drop the request (the sender may ask again later)'],
  ] as const) {
    pairing
      .command(verb)
      .description(text)
      .argument('<code>', 'the code the bot sent to the sender')
      .action(async (code: string, _options: unknown, command: Command) => {
        const api = await cx.api(command);
        const answer = await api.json<PairingDecision>('POST', `/pairing/${enc(code)}/${verb}`);
        cx.ok(answer.message);
      });
  }
}
