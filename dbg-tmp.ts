import { startFakeDiscord } from './src/testing/fake-discord.ts';
import { runGateway } from './src/channels/discord/gateway.ts';
import { DiscordRest } from './src/channels/discord/discord-rest.ts';
const fake = await startFakeDiscord({ token: 'tok.en', messageContentIntent: false });
const t0 = Date.now();
const log = (m: string) => console.log(Date.now() - t0, m.slice(0, 150).replace(/\n/g, ' | '));
const ac = new AbortController();
const rest = new DiscordRest().client({ platform: 'discord', id: 'a', config: { app_secret: 'tok.en', api_base: fake.url } as never });
for (let i = 0; i < 4; i++) {
const session = {};
await runGateway('tok.en', rest, session, { ready: () => log('READY'), resumed: () => log('RESUMED'), dispatch: (p) => log('dispatch ' + p.t), debug: log }, ac.signal).then(() => log('ended'), (e) => log('failed ' + e.message));
}
await fake.close();
