// The WebSocket event API end to end with a real `ws` client: a chat turn, a Telegram-channel turn
// (fake Bot API) and a cron fire each stream text, tool, tool_result and done, in order, with the
// turn's id; chain subscriptions see every node; api accounts see only their own turns; ping/pong,
// subscribe switching and every refusal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { connect, refusal, type Received } from './ws-client.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';
const KEY1 = 'sk-account-one-0123456789';
const KEY2 = 'sk-account-two-0123456789';

/** One turn's events, from its first status to its done, in the order received. */
function turnOf(events: Received[], taskId: string): string[] {
  return events.filter((event) => event.taskId === taskId).map((event) => event.type);
}

/** Checks the order text..., tool, tool_result, text..., done of a tool-calling turn. */
function assertToolTurn(types: string[], where: string): void {
  const tool = types.indexOf('tool');
  const result = types.indexOf('tool_result');
  const done = types.indexOf('done');
  assert.equal(types[0], 'status', `${where}: ${types.join(',')}`);
  assert.ok(tool > 0 && result > tool && done > result, `${where}: ${types.join(',')}`);
  assert.ok(types.slice(result).includes('text'), `${where}: text after the tool result`);
  assert.equal(done, types.length - 1, `${where}: done is last`);
}

describe('WebSocket event API', () => {
  let upstream: FakeUpstream;
  let tg: FakeTelegram;
  let t: TestApp;
  let ws: string;

  const toolThenText = (text: string) => [
    { toolCalls: [{ name: 'glob', arguments: { pattern: '*.md' } }] },
    { text },
  ];

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'plain answer' });
    tg = await startFakeTelegram({ tokens: [TOKEN] });
    t = await createTestApp({
      listen: true,
      config: {
        models: upstream.modelsConfig(),
        channels: {
          telegram: { enabled: true, accounts: { bot1: { app_secret: TOKEN, api_base: tg.url } } },
          api: { enabled: true, accounts: { one: { api_key: KEY1 }, two: { api_key: KEY2 } } },
        },
      },
      services: { channels: { backoff: { baseMs: 20, maxMs: 100 } } },
    });
    ws = t.url.replace('http://', 'ws://');
  });
  after(async () => {
    await t.close();
    await tg.close();
    await upstream.close();
  });

  it('a chat turn streams status, text, tool, tool_result and done with the turn id, in order', async () => {
    const client = await connect(`${ws}/api/v1/ws?agentId=main`);
    upstream.script(...toolThenText('Found the files.'));
    const response = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'list files' }] }),
    });
    assert.equal(response.status, 200);
    const events = await client.until((list) => list.some((e) => e.type === 'done'), 'done');
    const done = events.find((event) => event.type === 'done') as Received;
    assert.match(done.taskId ?? '', /^turn_/);
    assertToolTurn(turnOf(events, done.taskId as string), 'chat');
    const tool = events.find((event) => event.type === 'tool') as Received;
    assert.deepEqual(tool.payload?.['args'], { pattern: '*.md' });
    assert.equal(tool.payload?.['tool'], 'glob');
    assert.equal(tool.agentId, 'main');
    assert.equal(typeof tool.timestamp, 'number');
    assert.match(tool.id ?? '', /^evt_/);
    assert.equal(done.payload?.['content'], 'Found the files.');
    const text = events
      .filter((e) => e.type === 'text')
      .map((e) => e.payload?.['content'])
      .join('');
    assert.equal(text, 'Found the files.');
    client.close();
  });

  it('a Telegram-channel turn and a cron fire stream the same events to /agents/{id}/ws', async () => {
    const client = await connect(`${ws}/api/v1/agents/main/ws`);
    upstream.script(...toolThenText('Telegram answer.'));
    tg.pushMessage({ chatId: 4242, text: 'files please' });
    await tg.waitForCalls('sendMessage', 1);
    const telegram = await client.until((list) => list.some((e) => e.type === 'done'), 'the telegram turn');
    const first = telegram.find((e) => e.type === 'done') as Received;
    assertToolTurn(turnOf(telegram, first.taskId as string), 'telegram');
    assert.equal(telegram.find((e) => e.type === 'status')?.payload?.['channel'], 'telegram');

    upstream.script(...toolThenText('Cron answer.'));
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/cron',
      payload: { name: 'every second', schedule: '* * * * * *', message: 'report', target: 'main' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const events = await client.until(
      (list) => list.filter((e) => e.type === 'done').length >= 2,
      'the cron turn',
    );
    await t.app.inject({ method: 'DELETE', url: `/api/v1/cron/${created.json().id}` });
    const cronDone = events.filter((e) => e.type === 'done')[1] as Received;
    assert.notEqual(cronDone.taskId, first.taskId);
    assertToolTurn(turnOf(events, cronDone.taskId as string), 'cron');
    assert.equal(events.find((e) => e.taskId === cronDone.taskId)?.payload?.['channel'], 'cron');
    assert.equal(cronDone.payload?.['content'], 'Cron answer.');
    client.close();
  });

  it('a chain subscription sees every node start and end with relation, timing and error', async () => {
    const chain = chainDefinition(
      'pipeline',
      [
        {
          id: 'shape',
          type: 'jsTransform',
          configuration: { jsScript: 'return {msg: {n: 1}, metadata, msgType};' },
        },
        { id: 'check', type: 'jsFilter', configuration: { jsScript: 'return msg.n === 1;' } },
        { id: 'boom', type: 'jsTransform', configuration: { jsScript: 'throw new Error("node broke");' } },
      ],
      [
        ['shape', 'Success', 'check'],
        ['check', 'True', 'boom'],
      ],
    );
    const saved = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: chain });
    assert.equal(saved.statusCode, 201, saved.body);
    const client = await connect(`${ws}/api/v1/event/ws/client-1?chainId=pipeline`);
    const run = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules/pipeline/execute',
      payload: { a: 1 },
    });
    assert.ok(run.statusCode < 500, run.body);
    const events = await client.until(
      (list) => list.some((e) => e.type === 'error' || e.type === 'done'),
      'the run end',
    );
    const nodes = events
      .filter((e) => e.type === 'progress')
      .map((e) => `${e.payload?.['phase']}:${e.payload?.['nodeId']}`);
    assert.deepEqual(nodes, [
      'start:shape',
      'end:shape',
      'start:check',
      'end:check',
      'start:boom',
      'end:boom',
    ]);
    const ends = events.filter((e) => e.payload?.['phase'] === 'end');
    assert.equal(ends[0]?.payload?.['relation'], 'Success');
    assert.equal(ends[1]?.payload?.['relation'], 'True');
    assert.equal(ends[2]?.payload?.['relation'], 'Failure');
    assert.match(String(ends[2]?.payload?.['error']), /node broke/);
    for (const end of ends) assert.equal(typeof end.payload?.['durationMs'], 'number');
    assert.equal(events.at(-1)?.type, 'error');
    assert.ok(
      events.every((e) => e.type === 'subscribed' || e.taskId === events[1]?.taskId),
      'one run id',
    );
    client.close();
  });

  it("a second api account sees none of the first account's turns; each sees its own", async () => {
    const one = await connect(`${ws}/api/v1/ws?agentId=main`, {
      headers: { authorization: `Bearer ${KEY1}` },
    });
    const two = await connect(`${ws}/api/v1/ws?token=${KEY2}`);
    const user = await connect(`${ws}/api/v1/ws`);
    const ask = (key: string, content: string) =>
      fetch(`${t.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content }] }),
      }).then((response) => response.json());
    upstream.script({ text: 'for account one' });
    await ask(KEY1, 'hello from one');
    await one.until((list) => list.some((e) => e.type === 'done'), 'account one sees its turn');
    await user.until((list) => list.some((e) => e.type === 'done'), 'the user sees the turn');
    upstream.script({ text: 'for account two' });
    await ask(KEY2, 'hello from two');
    await two.until((list) => list.some((e) => e.type === 'done'), 'account two sees its turn');
    await user.until((list) => list.filter((e) => e.type === 'done').length === 2, 'the user sees both');
    const contents = (list: Received[]) =>
      list.filter((e) => e.type === 'done').map((e) => e.payload?.['content']);
    assert.deepEqual(contents(one.events), ['for account one']);
    assert.deepEqual(contents(two.events), ['for account two']);
    assert.deepEqual(contents(user.events), ['for account one', 'for account two']);
    const oneTask = one.events.find((e) => e.type === 'done')?.taskId;
    assert.ok(!two.events.some((e) => e.taskId === oneTask), 'no event of the other account');
    for (const client of [one, two, user]) client.close();
  });

  it('ping is answered pong, subscribe switches agents on /ws, and bad messages are answered with an error', async () => {
    const helper = {
      ruleChain: { id: 'helper', name: 'helper', additionalInfo: { category: 'agents' } },
      metadata: { nodes: [{ id: 'agent', type: 'ai/agent', configuration: {} }], connections: [] },
    };
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: helper })).statusCode,
      201,
    );
    const client = await connect(`${ws}/api/v1/ws`);
    client.socket.send(JSON.stringify({ type: 'ping' }));
    await client.until((list) => list.some((e) => e.type === 'pong'), 'pong');
    client.socket.send('not json');
    await client.until((list) => list.some((e) => e.type === 'error'), 'an error answer');
    client.socket.send(JSON.stringify({ type: 'subscribe', agentId: 'ghost' }));
    await client.until(
      (list) => list.filter((e) => e.type === 'error').length === 2,
      'unknown agent refused',
    );
    assert.match(String(client.events.at(-1)?.payload?.['message']), /ghost/);
    client.socket.send(JSON.stringify({ type: 'subscribe', agentId: 'helper' }));
    await client.until(
      (list) => list.some((e) => e.type === 'subscribed' && e.agentId === 'helper'),
      'switched',
    );
    upstream.script({ text: 'main answer' });
    await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'x' }] }),
    });
    upstream.script({ text: 'helper answer' });
    await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'helper', messages: [{ role: 'user', content: 'x' }] }),
    });
    await client.until((list) => list.some((e) => e.type === 'done'), 'the helper turn');
    assert.ok(client.events.filter((e) => e.type === 'done').every((e) => e.agentId === 'helper'));
    client.close();
  });

  it("a sub-agent's turn streams to the sub-agent's subscribers, named as called by its caller", async () => {
    const boss = {
      ruleChain: { id: 'boss', name: 'boss', additionalInfo: { category: 'agents' } },
      metadata: {
        nodes: [
          {
            id: 'agent',
            type: 'ai/agent',
            configuration: { tools: [{ type: 'agent', name: 'ask_helper', targetId: 'scribe' }] },
          },
        ],
        connections: [],
      },
    };
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: boss })).statusCode,
      201,
    );
    const scribe = {
      ...boss,
      ruleChain: { ...boss.ruleChain, id: 'scribe', name: 'scribe' },
      metadata: { nodes: [{ id: 'agent', type: 'ai/agent', configuration: {} }], connections: [] },
    };
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: scribe })).statusCode,
      201,
    );
    const watcher = await connect(`${ws}/api/v1/agents/scribe/ws`);
    upstream.script(
      { toolCalls: [{ name: 'ask_helper', arguments: { input: 'sum it up' } }] },
      { text: 'helper summary' },
      { text: 'boss answer' },
    );
    const response = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'boss', messages: [{ role: 'user', content: 'go' }] }),
    });
    assert.equal(
      ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message
        .content,
      'boss answer',
    );
    const events = await watcher.until((list) => list.some((e) => e.type === 'done'), 'the sub-agent turn');
    const status = events.find((e) => e.type === 'status') as Received;
    assert.equal(status.payload?.['channel'], 'subagent');
    assert.match(String(status.payload?.['parentTaskId']), /^turn_/);
    assert.equal(
      events
        .filter((e) => e.type === 'text')
        .map((e) => e.payload?.['content'])
        .join(''),
      'helper summary',
    );
    assert.equal(events.find((e) => e.type === 'done')?.payload?.['content'], 'helper summary');
    assert.ok(events.every((e) => e.type === 'subscribed' || e.agentId === 'scribe'));
    watcher.close();
  });

  it('refuses unknown agents and chains, a missing chainId and plain GETs, as {error}', async () => {
    const ghost = await refusal(`${ws}/api/v1/agents/ghost/ws`);
    assert.equal(ghost.status, 404);
    assert.match(ghost.body.error ?? '', /ghost/);
    const chain = await refusal(`${ws}/api/v1/event/ws/c1?chainId=nothing`);
    assert.equal(chain.status, 404);
    const missing = await refusal(`${ws}/api/v1/event/ws/c1`);
    assert.equal(missing.status, 400);
    assert.match(missing.body.error ?? '', /chainId is required/);
    const crossSite = await refusal(`${ws}/api/v1/ws`, { headers: { origin: 'https://evil.example' } });
    assert.equal(crossSite.status, 403);
    const plain = await fetch(`${t.url}/api/v1/ws`);
    assert.equal(plain.status, 426);
    assert.deepEqual(await plain.json(), {
      error: 'this route is a WebSocket: connect with Upgrade: websocket',
    });
  });
});

describe('WebSocket event API with requireAuth on', () => {
  let t: TestApp;
  let ws: string;
  before(async () => {
    t = await createTestApp({
      listen: true,
      config: {
        security: { requireAuth: true, users: { admin: 'admin-password-1:sk-admin-key-0123456789' } },
      },
    });
    ws = t.url.replace('http://', 'ws://');
  });
  after(() => t.close());

  it('needs a credential: none or a wrong one is a 401; a key in the query or the subprotocol works', async () => {
    const none = await refusal(`${ws}/api/v1/ws`);
    assert.equal(none.status, 401);
    assert.match(none.body.error ?? '', /missing credentials/);
    const wrong = await refusal(`${ws}/api/v1/ws?token=nope`);
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.body, { error: 'invalid or expired credentials' });
    const query = await connect(`${ws}/api/v1/ws?key=sk-admin-key-0123456789`);
    query.close();
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'admin-password-1' },
    });
    const token = login.json().token as string;
    const browser = await connect(`${ws}/api/v1/ws`, { protocols: ['agent-service', `bearer.${token}`] });
    assert.equal(browser.socket.protocol, 'agent-service');
    browser.close();
  });
});
