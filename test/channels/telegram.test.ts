// The Telegram adapter end to end: a fake Bot API on loopback, the default agent answering through a
// fake OpenAI upstream, policies, bindings, long replies, the outbound endpoints and shutdown.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { APOLOGY, channelSession, type InboundOutcome } from '../../src/channels/inbound.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';
const TOKEN2 = '654321:OTHER-token-qrstuvwxyz012345';

interface Harness {
  t: TestApp;
  tg: FakeTelegram;
  upstream: FakeUpstream;
  handled: Array<{ message: InboundMessage; outcome: InboundOutcome }>;
  logs: string[];
  close(): Promise<void>;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function start(
  options: {
    accounts?: Record<string, Record<string, unknown>>;
    bindings?: unknown[];
    reply?: string;
    prepare?: (tg: FakeTelegram) => void;
    channels?: Record<string, unknown>;
  } = {},
): Promise<Harness> {
  const upstream = await startFakeUpstream({ reply: options.reply ?? 'Hello from the agent.' });
  const tg = await startFakeTelegram({ tokens: [TOKEN, TOKEN2] });
  options.prepare?.(tg);
  const handled: Harness['handled'] = [];
  const logs: string[] = [];
  const log = (object: object, message: string): void =>
    void logs.push(`${message} ${JSON.stringify(object)}`);
  const accounts = Object.fromEntries(
    Object.entries(options.accounts ?? { bot1: {} }).map(([id, fields]) => [
      id,
      { app_secret: TOKEN, api_base: tg.url, ...fields },
    ]),
  );
  const t = await createTestApp({
    config: {
      models: upstream.modelsConfig(),
      channels: { telegram: { enabled: true, accounts }, ...options.channels },
      bindings: options.bindings ?? [],
    },
    services: {
      logger: { info: log, warn: log },
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
    logs,
    async close() {
      await t.close();
      await tg.close();
      await upstream.close();
    },
  };
}

function helperAgent(id: string) {
  return {
    ruleChain: { id, name: id },
    metadata: {
      nodes: [
        { id: 'agent', type: 'ai/agent', configuration: { systemPrompt: `You are ${id}.` } },
        { id: 'end', type: 'end' },
      ],
      connections: [{ fromId: 'agent', toId: 'end', type: 'Success' }],
    },
  };
}

describe('telegram inbound', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('a DM is answered by agent main in the same chat, in the session of that peer', async () => {
    h = await start();
    const updateId = h.tg.pushMessage({ chatId: 4242, text: 'What is up?' });
    const [sent] = await h.tg.waitForCalls('sendMessage', 1);
    assert.equal(sent?.token, TOKEN);
    assert.equal(String(sent?.params['chat_id']), '4242');
    assert.equal(sent?.params['text'], 'Hello from the agent.');
    assert.equal(sent?.params['reply_parameters'], undefined, 'a DM answer is not a quoted reply');
    // The agent saw the user's text.
    assert.match(JSON.stringify(h.upstream.requests[0]), /What is up\?/);
    // The turn is kept in the session of account bot1 and peer 4242.
    await waitFor(() => h.handled.length === 1, 'the message to be handled');
    assert.equal(h.handled[0]?.outcome, 'replied');
    const session = channelSession(h.handled[0]!.message, 'main');
    assert.equal(session.key, 'agent:main:channel:telegram:scope:per_account_channel_peer:bot1:4242');
    const history = await h.t.services.sessions.load(session.key);
    assert.deepEqual(
      history.map((message) => message.role),
      ['user', 'assistant'],
    );
    // The update was confirmed: the next poll asks for the one after it.
    await waitFor(
      () => h.tg.callsOf('getUpdates').some((call) => call.params['offset'] === updateId + 1),
      'a confirming poll',
    );
  });

  it('group_policy disabled: no turn and no reply, and the refusal is logged without the content', async () => {
    h = await start({ accounts: { bot1: { group_policy: 'disabled' } } });
    h.tg.pushMessage({ chatId: -100, chatType: 'group', fromId: 7, text: 'secret group words' });
    await waitFor(() => h.handled.length === 1, 'the group message');
    assert.equal(h.handled[0]?.outcome, 'refused');
    h.tg.pushMessage({ chatId: 7, text: 'dm words' });
    await h.tg.waitForCalls('sendMessage', 1);
    await waitFor(() => h.handled.length === 2, 'the DM');
    assert.equal(h.tg.callsOf('sendMessage').length, 1);
    assert.equal(String(h.tg.callsOf('sendMessage')[0]?.params['chat_id']), '7');
    assert.equal(h.upstream.requestCount, 1);
    const refusal = h.logs.find((line) => line.startsWith('channel message refused by policy'));
    assert.ok(refusal, h.logs.join('\n'));
    assert.doesNotMatch(refusal, /secret group words/);
  });

  it('allowlist: only listed senders (DM) and listed chats (group) get answers', async () => {
    h = await start({
      accounts: { bot1: { dm_policy: 'allowlist', group_policy: 'allowlist', allow_from: ['111', '-500'] } },
    });
    h.tg.pushMessage({ chatId: 222, text: 'let me in' });
    h.tg.pushMessage({ chatId: -600, chatType: 'supergroup', fromId: 111, text: 'unlisted group' });
    h.tg.pushMessage({ chatId: 111, text: 'listed sender' });
    h.tg.pushMessage({ chatId: -500, chatType: 'group', fromId: 333, text: 'listed group' });
    await waitFor(() => h.handled.length === 4, 'four messages');
    const outcomes = Object.fromEntries(h.handled.map((entry) => [entry.message.chatId, entry.outcome]));
    assert.deepEqual(outcomes, { '222': 'refused', '-600': 'refused', '111': 'replied', '-500': 'replied' });
    const chats = h.tg.callsOf('sendMessage').map((call) => String(call.params['chat_id']));
    assert.deepEqual(chats.sort(), ['-500', '111']);
    // In a group, the answer quotes the message it answers.
    const groupReply = h.tg.callsOf('sendMessage').find((call) => String(call.params['chat_id']) === '-500');
    assert.ok(groupReply?.params['reply_parameters']);
  });

  it('bindings route by peer first, then by account, else to main', async () => {
    h = await start({
      accounts: { bot1: {}, bot2: { app_secret: TOKEN2 } },
      bindings: [
        { agent_id: 'support', match: { channel: 'telegram', account_id: 'bot2' } },
        { agent_id: 'vip', match: { channel: 'telegram', peer: '555' } },
      ],
    });
    for (const id of ['support', 'vip']) {
      const created = await h.t.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        payload: helperAgent(id),
      });
      assert.equal(created.statusCode, 201, created.body);
    }
    const cases: Array<[number, string, string, string]> = [
      [555, 'bot1', TOKEN, 'vip'],
      [777, 'bot1', TOKEN, 'main'],
      [777, 'bot2', TOKEN2, 'support'],
      [555, 'bot2', TOKEN2, 'vip'],
    ];
    for (const [chatId, account, token, agentId] of cases) {
      const before = h.handled.length;
      const requests = h.upstream.requestCount;
      h.tg.pushMessage({ chatId, text: `from ${chatId} via ${account}`, token });
      await waitFor(() => h.handled.length === before + 1, 'the message');
      const entry = h.handled.at(-1)!;
      assert.equal(entry.message.accountId, account);
      assert.equal(entry.outcome, 'replied');
      // The chosen agent's system prompt went upstream, and the turn is in that agent's session.
      const system = JSON.stringify(h.upstream.requests[requests]);
      if (agentId === 'main') assert.doesNotMatch(system, /You are (vip|support)\./);
      else assert.match(system, new RegExp(`You are ${agentId}\\.`));
      const history = await h.t.services.sessions.load(channelSession(entry.message, agentId).key);
      assert.equal(history.length, 2, `${account}/${chatId} -> ${agentId}`);
    }
    const replies = h.tg
      .callsOf('sendMessage')
      .map((call) => `${call.token === TOKEN ? 'bot1' : 'bot2'}:${call.params['chat_id']}`);
    assert.deepEqual(replies, ['bot1:555', 'bot1:777', 'bot2:777', 'bot2:555']);
  });

  it('a long answer is split into messages of at most 4096 characters', async () => {
    const long = `${'a'.repeat(4000)}\n${'b'.repeat(4000)}\n${'c'.repeat(1000)}`;
    h = await start({ reply: long });
    h.tg.pushMessage({ chatId: 9, text: 'tell me a lot' });
    const calls = await h.tg.waitForCalls('sendMessage', 3);
    const texts = calls.map((call) => String(call.params['text']));
    assert.ok(texts.every((text) => text.length <= 4096));
    assert.deepEqual(texts, ['a'.repeat(4000), 'b'.repeat(4000), 'c'.repeat(1000)]);
  });

  it('a failed turn is answered with a short apology that reveals nothing', async () => {
    h = await start({ bindings: [{ agent_id: 'ghost-agent', match: { channel: 'telegram' } }] });
    h.tg.pushMessage({ chatId: 31, text: 'hello?' });
    const [sent] = await h.tg.waitForCalls('sendMessage', 1);
    assert.equal(sent?.params['text'], APOLOGY);
    await waitFor(() => h.handled.length === 1, 'the message');
    assert.equal(h.handled[0]?.outcome, 'apologized');
  });

  it('polling backs off over 500s and a 429, then delivers; the token is in no log line', async () => {
    h = await start({
      prepare: (tg) => {
        tg.failNext('getUpdates', 500, 2, { description: `boom with ${TOKEN}` });
        tg.failNext('getUpdates', 429, 1, { retryAfter: 0 });
      },
    });
    h.tg.pushMessage({ chatId: 12, text: 'still there?' });
    await h.tg.waitForCalls('sendMessage', 1);
    assert.ok(h.tg.callsOf('getUpdates').length >= 4);
    const failures = h.logs.filter((line) => line.startsWith('channel connection lost; reconnecting'));
    assert.equal(failures.length, 3, h.logs.join('\n'));
    assert.ok(h.logs.every((line) => !line.includes(TOKEN) && !line.includes('SECRET-token')));
  });

  it('retry_after 0 and empty answers do not make the poller spin', async () => {
    h = await start({ prepare: (tg) => tg.failNext('getUpdates', 429, 4, { retryAfter: 0 }) });
    await h.tg.waitForCalls('getUpdates', 5);
    const failed = h.tg.callsOf('getUpdates').slice(0, 5);
    // Back-off 20, 40, 80, 100 ms (the test's settings), jittered down to half at most, between the
    // five calls: at least 10 + 20 + 40 + 50 ms, not 0.
    const spread = (failed[4]?.at ?? 0) - (failed[0]?.at ?? 0);
    assert.ok(spread >= 120, `four failures in ${spread} ms`);
  });

  it('a malformed update is skipped and does not block the ones after it', async () => {
    h = await start();
    h.tg.pushRaw(() => null);
    h.tg.pushRaw(() => ({ update_id: 'x' }));
    h.tg.pushRaw((id) => ({ update_id: id, message: { message_id: 1, text: 'no chat here' } }));
    h.tg.pushRaw((id) => ({ update_id: id, message: { message_id: 2, text: 'odd chat', chat: { id: {} } } }));
    h.tg.pushMessage({ chatId: 77, text: 'fine' });
    const [sent] = await h.tg.waitForCalls('sendMessage', 1);
    assert.equal(String(sent?.params['chat_id']), '77');
    await waitFor(() => h.handled.length === 1, 'one handled message');
  });

  it('messages without text and messages from bots are ignored', async () => {
    h = await start();
    h.tg.pushMessage({ chatId: 1 });
    h.tg.pushMessage({ chatId: 2, fromBot: true, text: 'beep' });
    h.tg.pushMessage({ chatId: 3, text: 'real' });
    await h.tg.waitForCalls('sendMessage', 1);
    await waitFor(() => h.handled.length === 1, 'one handled message');
    assert.equal(h.handled[0]?.message.chatId, '3');
    assert.equal(h.upstream.requestCount, 1);
  });
});

describe('telegram polling lifecycle', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('stops polling on close: no open poll and no new calls afterwards', async () => {
    h = await start();
    await waitFor(() => h.tg.openPolls === 1, 'a long poll');
    await h.t.close();
    await waitFor(() => h.tg.openPolls === 0, 'the poll to be dropped', 2000);
    const count = h.tg.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(h.tg.calls.length, count);
    assert.deepEqual(h.t.services.channels.running(), []);
    await h.tg.close();
    await h.upstream.close();
    h = { ...h, close: async () => {} };
  });

  it('follows config changes: disabling stops the poller, a new token restarts it', async () => {
    h = await start();
    await waitFor(() => h.tg.openPolls === 1, 'a long poll');
    assert.deepEqual(h.t.services.channels.running(), ['telegram/bot1']);
    const disabled = await h.t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/telegram/accounts/bot1',
      payload: { enabled: false },
    });
    assert.equal(disabled.statusCode, 200, disabled.body);
    assert.deepEqual(h.t.services.channels.running(), []);
    await waitFor(() => h.tg.openPolls === 0, 'the poll to stop');
    const enabled = await h.t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/telegram/accounts/bot1',
      payload: { enabled: true, app_secret: TOKEN2 },
    });
    assert.equal(enabled.statusCode, 200, enabled.body);
    await waitFor(
      () => h.tg.callsOf('getUpdates').some((call) => call.token === TOKEN2),
      'a poll with the new token',
    );
    h.tg.pushMessage({ chatId: 5, text: 'hi again' });
    const [sent] = await h.tg.waitForCalls('sendMessage', 1);
    assert.equal(sent?.token, TOKEN2);
    // The view shows neither the token nor the API origin.
    const view = await h.t.app.inject({ method: 'GET', url: '/api/v1/channels/telegram/accounts/bot1' });
    assert.equal(view.json().hasSecret, true);
    assert.doesNotMatch(view.body, /token|127\.0\.0\.1/i);
  });
});

describe('outbound endpoints', () => {
  let h: Harness;
  before(async () => {
    h = await start({
      accounts: { off: { enabled: false }, bot1: {}, broken: { api_base: 'http://127.0.0.1:9' } },
      channels: { discord: { enabled: true, accounts: {} } },
    });
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    await writeFile(join(workspace, 'notes.txt'), 'report body');
  });
  after(() => h.close());

  const post = (url: string, payload: unknown) =>
    h.t.app.inject({ method: 'POST', url: `/api/v1/channels/${url}`, payload: payload as object });

  it('send: text to a chat through the first enabled account', async () => {
    const response = await post('telegram/send', { chatId: 4242, message: 'Hi there' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.success, true);
    const call = h.tg.callsOf('sendMessage').at(-1);
    assert.equal(body.messageId, String(call?.result?.['message_id']));
    assert.equal(call?.token, TOKEN);
    assert.equal(call?.params['chat_id'], '4242');
    assert.equal(call?.params['text'], 'Hi there');
  });

  it('send: account errors are 404 and 409; validation is 400', async () => {
    const unknown = await post('telegram/send', { chatId: '1', message: 'x', accountId: 'nope' });
    assert.equal(unknown.statusCode, 404);
    const off = await post('telegram/send', { chatId: '1', message: 'x', accountId: 'off' });
    assert.equal(off.statusCode, 409);
    assert.match(off.json().error, /disabled/);
    const none = await post('discord/send', { chatId: '1', message: 'x' });
    assert.equal(none.statusCode, 409, 'a platform with no enabled account');
    assert.match(none.json().error, /platform "discord" has no enabled account/);
    const missing = await post('telegram/send', { message: 'x' });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /chatId/);
    const empty = await post('telegram/send', { chatId: '1', message: '' });
    assert.equal(empty.statusCode, 400);
  });

  it('an api_base with a user name or password is refused', async () => {
    const response = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/telegram/accounts',
      payload: { id: 'proxied', app_secret: 'x:y', api_base: 'http://user:pass@127.0.0.1:9' },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().error, /api_base.*must not carry a user name or password/);
    assert.doesNotMatch(response.body, /pass@/);
  });

  it('platforms: 409 for a supported one with no account, 404 for an unknown one', async () => {
    // Every platform has an adapter: with no account configured, sending through it is a 409.
    const slack = await post('slack/send', { chatId: 'C1', message: 'x' });
    assert.equal(slack.statusCode, 409);
    assert.match(slack.json().error, /platform "slack" has no enabled account/);
    const image = await post('slack/send-image', { chatId: 'C1', imageKey: 'k' });
    assert.equal(image.statusCode, 409);
    const discord = await post('discord/send', { chatId: '123', message: 'x' });
    assert.equal(discord.statusCode, 409);
    assert.match(discord.json().error, /platform "discord" has no enabled account/);
    const unknown = await post('myspace/send', { chatId: 'C1', message: 'x' });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(Object.keys(unknown.json()), ['error']);
  });

  it('a send is retried on 5xx and 429 (after Retry-After), not on other errors; each retry is one call', async () => {
    const before = h.tg.callsOf('sendMessage').length;
    h.tg.failNext('sendMessage', 502, 2);
    const retried = await post('telegram/send', { chatId: '5', message: 'after two 502s', accountId: 'bot1' });
    assert.equal(retried.statusCode, 200, retried.body);
    h.tg.failNext('sendMessage', 429, 1, { retryAfter: 1 });
    const limited = await post('telegram/send', { chatId: '5', message: 'after a 429', accountId: 'bot1' });
    assert.equal(limited.statusCode, 200, limited.body);
    const calls = h.tg.callsOf('sendMessage').slice(before);
    assert.deepEqual(
      calls.map((call) => call.params['text']),
      ['after two 502s', 'after two 502s', 'after two 502s', 'after a 429', 'after a 429'],
    );
    h.tg.failNext('sendMessage', 400, 1, { description: 'Bad Request: chat not found' });
    const refused = await post('telegram/send', { chatId: '5', message: 'never', accountId: 'bot1' });
    assert.equal(refused.statusCode, 502);
    assert.match(refused.json().error, /chat not found/);
    assert.equal(h.tg.callsOf('sendMessage').length, before + 6, 'a 400 is not retried');
  });

  it('a Telegram failure is a 502 that never contains the token', async () => {
    // Failing every attempt: the send is retried, then reported.
    h.tg.failNext('sendMessage', 500, 4, { description: `Internal error for bot${TOKEN}` });
    const failed = await post('telegram/send', { chatId: '1', message: 'x', accountId: 'bot1' });
    assert.equal(failed.statusCode, 502);
    assert.match(failed.json().error, /telegram sendMessage failed/);
    assert.ok(!failed.body.includes(TOKEN) && !failed.body.includes('SECRET-token'), failed.body);
    const unreachable = await post('telegram/send', { chatId: '1', message: 'x', accountId: 'broken' });
    assert.equal(unreachable.statusCode, 502);
    assert.match(unreachable.json().error, /could not reach/);
    assert.ok(!unreachable.body.includes('SECRET-token'));
    const tooLong = await post('telegram/send', {
      chatId: '1',
      message: 'y'.repeat(5000),
      accountId: 'bot1',
    });
    assert.equal(tooLong.statusCode, 200);
    assert.deepEqual(
      h.tg
        .callsOf('sendMessage')
        .slice(-2)
        .map((call) => String(call.params['text']).length),
      [4096, 904],
    );
  });

  it('send-image uploads a workspace file as multipart, or passes a file_id', async () => {
    const uploaded = await post('telegram/send-image', { chatId: '77', imagePath: 'main:pic.png' });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    assert.equal(uploaded.json().success, true);
    const call = h.tg.callsOf('sendPhoto').at(-1);
    assert.match(call?.contentType ?? '', /^multipart\/form-data; boundary=/);
    assert.equal(call?.params['chat_id'], '77');
    assert.equal(call?.files['photo']?.fileName, 'pic.png');
    assert.deepEqual([...(call?.files['photo']?.bytes ?? [])], [0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const byKey = await post('telegram/send-image', { chatId: '77', imageKey: 'AgACAgIAAxkB' });
    assert.equal(byKey.statusCode, 200, byKey.body);
    const keyed = h.tg.callsOf('sendPhoto').at(-1);
    assert.equal(keyed?.params['photo'], 'AgACAgIAAxkB');
    assert.deepEqual(keyed?.files, {});
  });

  it('send-file uploads with the given name', async () => {
    const response = await post('telegram/send-file', {
      chatId: '77',
      filePath: 'main:notes.txt',
      fileName: 'report.txt',
    });
    assert.equal(response.statusCode, 200, response.body);
    const call = h.tg.callsOf('sendDocument').at(-1);
    assert.equal(call?.files['document']?.fileName, 'report.txt');
    assert.equal(call?.files['document']?.bytes.toString(), 'report body');
    const byKey = await post('telegram/send-file', { chatId: '77', fileKey: 'BQACAgIAAxkB' });
    assert.equal(byKey.statusCode, 200);
    assert.equal(h.tg.callsOf('sendDocument').at(-1)?.params['document'], 'BQACAgIAAxkB');
  });

  it('refuses paths outside an agent workspace and bad combinations', async () => {
    const before = h.tg.callsOf('sendPhoto').length + h.tg.callsOf('sendDocument').length;
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ['send-image', { chatId: '1', imagePath: 'main:../../../config.yaml' }, 400],
      ['send-image', { chatId: '1', imagePath: 'main:/etc/passwd' }, 400],
      ['send-image', { chatId: '1', imagePath: '/etc/passwd' }, 400],
      ['send-file', { chatId: '1', filePath: 'pic.png' }, 400],
      ['send-file', { chatId: '1', filePath: 'main:.' }, 400],
      ['send-file', { chatId: '1', filePath: 'main:missing.txt' }, 404],
      ['send-file', { chatId: '1', filePath: 'ghost:notes.txt' }, 404],
      ['send-image', { chatId: '1' }, 400],
      ['send-image', { chatId: '1', imagePath: 'main:pic.png', imageKey: 'k' }, 400],
      ['send-file', { chatId: '1', fileKey: 'k', extra: true }, 400],
    ];
    for (const [path, payload, status] of cases) {
      const response = await post(`telegram/${path}`, payload);
      assert.equal(response.statusCode, status, `${path} ${JSON.stringify(payload)}: ${response.body}`);
      assert.equal(typeof response.json().error, 'string');
    }
    assert.equal(h.tg.callsOf('sendPhoto').length + h.tg.callsOf('sendDocument').length, before);
  });
});
