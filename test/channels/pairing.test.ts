// DM pairing end to end with the fake Telegram: an unknown sender gets a code once, the admin
// approves it over REST (as the Channels page does), and the sender then chats with the agent.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { InboundOutcome } from '../../src/channels/inbound.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { cli } from '../cli/cli-harness.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';

async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface PairingHarness {
  t: TestApp;
  tg: FakeTelegram;
  upstream: FakeUpstream;
  handled: Array<{ message: InboundMessage; outcome: InboundOutcome }>;
  close(): Promise<void>;
}

export async function startPairing(options: { listen?: boolean } = {}): Promise<PairingHarness> {
  const upstream = await startFakeUpstream({ reply: 'Hello from the agent.' });
  const tg = await startFakeTelegram({ tokens: [TOKEN] });
  const handled: PairingHarness['handled'] = [];
  const t = await createTestApp({
    ...(options.listen ? { listen: true } : {}),
    config: {
      models: upstream.modelsConfig(),
      channels: {
        telegram: {
          enabled: true,
          accounts: {
            bot1: { app_secret: TOKEN, api_base: tg.url, dm_policy: 'pairing', allow_from: ['1'] },
          },
        },
      },
    },
    services: {
      channels: {
        backoff: { baseMs: 20, maxMs: 100 },
        onHandled: (message, outcome) => void handled.push({ message, outcome }),
      },
    },
  });
  return {
    t,
    tg,
    upstream,
    handled,
    async close() {
      await t.close();
      await tg.close();
      await upstream.close();
    },
  };
}

describe('dm_policy pairing', () => {
  let h: PairingHarness;
  afterEach(() => h?.close());

  it('an unknown sender gets one code; once approved it chats; a rejected code is gone', async () => {
    h = await startPairing();
    h.tg.pushMessage({ chatId: 77, fromId: 77, text: 'hello?' });
    const [codeMessage] = await h.tg.waitForCalls('sendMessage', 1, 20_000);
    const text = String(codeMessage?.params['text']);
    const code = /pairing code is ([A-Z0-9]{8})/.exec(text)?.[1];
    assert.ok(code, text);
    assert.equal(String(codeMessage?.params['chat_id']), '77');
    // A second message while the request is pending gets nothing: the code is sent once.
    h.tg.pushMessage({ chatId: 77, fromId: 77, text: 'anyone?' });
    await waitFor(() => h.handled.length === 2, 'both messages');
    assert.deepEqual(
      h.handled.map((entry) => entry.outcome),
      ['refused', 'refused'],
    );
    assert.equal(h.tg.callsOf('sendMessage').length, 1);
    assert.equal(h.upstream.requestCount, 0, 'no agent turn for an unpaired sender');
    // A paired sender (on allow_from) chats as usual.
    h.tg.pushMessage({ chatId: 1, fromId: 1, text: 'hi' });
    await waitFor(() => h.handled.length === 3, 'the paired message');
    await h.tg.waitForCalls('sendMessage', 2, 20_000);

    const list = await h.t.app.inject({ method: 'GET', url: '/api/v1/pairing' });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list
        .json()
        .data.map((r: Record<string, string>) => [r['code'], r['platform'], r['accountId'], r['senderId']]),
      [[code, 'telegram', 'bot1', '77']],
    );
    const wrong = await h.t.app.inject({ method: 'POST', url: '/api/v1/pairing/ZZZZZZZZ/approve' });
    assert.equal(wrong.statusCode, 404);
    assert.match(wrong.json().error, /no pending pairing request/);
    const bad = await h.t.app.inject({ method: 'POST', url: '/api/v1/pairing/x%20y/approve' });
    assert.equal(bad.statusCode, 400);

    const approved = await h.t.app.inject({
      method: 'POST',
      url: `/api/v1/pairing/${code.toLowerCase()}/approve`,
    });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.match(approved.json().message, /added to allow_from/);
    assert.match(await readFile(h.t.configPath, 'utf8'), /allow_from:\s*\n\s*- "?1"?\s*\n\s*- "?77"?/);
    assert.deepEqual((await h.t.app.inject({ method: 'GET', url: '/api/v1/pairing' })).json().data, []);

    h.tg.pushMessage({ chatId: 77, fromId: 77, text: 'now?' });
    const calls = await h.tg.waitForCalls('sendMessage', 3, 20_000);
    assert.equal(calls[2]?.params['text'], 'Hello from the agent.');
    assert.equal(String(calls[2]?.params['chat_id']), '77');

    // Another sender's request, rejected: the code is gone and the sender is not added.
    h.tg.pushMessage({ chatId: 88, fromId: 88, text: 'me too' });
    const [, , , second] = await h.tg.waitForCalls('sendMessage', 4, 20_000);
    const code2 = /pairing code is ([A-Z0-9]{8})/.exec(String(second?.params['text']))?.[1];
    assert.ok(code2);
    const rejected = await h.t.app.inject({ method: 'POST', url: `/api/v1/pairing/${code2}/reject` });
    assert.equal(rejected.statusCode, 200);
    assert.equal(
      (await h.t.app.inject({ method: 'POST', url: `/api/v1/pairing/${code2}/approve` })).statusCode,
      404,
    );
    assert.doesNotMatch(await readFile(h.t.configPath, 'utf8'), /- "?88"?/);
  });

  it('dm_policy pairing is refused for groups and accepted by the channels API', async () => {
    h = await startPairing();
    const groupPairing = await h.t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/telegram/accounts/bot1',
      payload: { group_policy: 'pairing' },
    });
    assert.equal(groupPairing.statusCode, 400, groupPairing.body);
    const view = await h.t.app.inject({ method: 'GET', url: '/api/v1/channels/telegram/accounts/bot1' });
    assert.equal(view.json().dmPolicy, 'pairing');
  });

  it('agent-service pairing list|approve|reject drives the same requests from the command line', async () => {
    h = await startPairing({ listen: true });
    const home = await mkdtemp(join(tmpdir(), 'pairing-cli-'));
    try {
      const run = (...args: string[]) => cli([...args, '--url', h.t.url], home);
      assert.match((await run('pairing', 'list')).out, /no pending pairing requests/);
      h.tg.pushMessage({ chatId: 55, fromId: 55, text: 'hi' });
      h.tg.pushMessage({ chatId: 66, fromId: 66, text: 'hi' });
      const sent = await h.tg.waitForCalls('sendMessage', 2, 20_000);
      const codes = new Map(
        sent.map((call) => [
          String(call.params['chat_id']),
          /pairing code is ([A-Z0-9]{8})/.exec(String(call.params['text']))?.[1] ?? '',
        ]),
      );
      const listed = await run('pairing', 'list');
      assert.equal(listed.code, 0, listed.err);
      assert.match(listed.out, new RegExp(`${codes.get('55')}\\s+telegram\\s+bot1\\s+55`));
      const json = JSON.parse((await run('pairing', 'list', '--json')).out);
      assert.equal(json.length, 2);
      const approved = await run('pairing', 'approve', codes.get('55') ?? '');
      assert.equal(approved.code, 0, approved.err);
      assert.match(approved.out, /sender 55 added to allow_from of telegram\/bot1/);
      const rejected = await run('pairing', 'reject', codes.get('66') ?? '');
      assert.equal(rejected.code, 0, rejected.err);
      const again = await run('pairing', 'approve', codes.get('66') ?? '');
      assert.equal(again.code, 1);
      assert.match(again.err, /no pending pairing request/);
      h.tg.pushMessage({ chatId: 55, fromId: 55, text: 'now?' });
      const calls = await h.tg.waitForCalls('sendMessage', 3, 20_000);
      assert.equal(calls[2]?.params['text'], 'Hello from the agent.');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
