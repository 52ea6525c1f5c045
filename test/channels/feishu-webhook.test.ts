// The Feishu webhook adapter through the real route, POST /webhooks/feishu_webhook/{accountId}:
// the URL check, the Verification Token, encrypted and signed events, 401s that start nothing, the
// answer before the turn (Feishu's 3 seconds), event de-duplication, and mentions in groups.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { InboundOutcome } from '../../src/channels/inbound.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import {
  encryptEvent,
  signedHeaders,
  startFakeFeishu,
  type FakeFeishu,
} from '../fakes/fake-feishu.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const SECRET = 'webhook-app-SECRET-0123456789';
const VERIFICATION = 'verification-TOKEN-abcdef';
const ENCRYPT_KEY = 'encrypt-KEY-0123456789abcdef';
const REPLY = 'Hello from the agent.';

interface Harness {
  t: TestApp;
  feishu: FakeFeishu;
  upstream: FakeUpstream;
  handled: Array<{ message: InboundMessage; outcome: InboundOutcome }>;
  logs: string[];
  post(
    body: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: string; json: () => unknown }>;
  close(): Promise<void>;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function start(
  options: { encrypt?: boolean; latencyMs?: number; account?: Record<string, unknown> } = {},
): Promise<Harness> {
  const upstream = await startFakeUpstream({
    reply: REPLY,
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
  });
  const feishu = await startFakeFeishu({ appSecret: SECRET, verificationToken: VERIFICATION });
  const handled: Harness['handled'] = [];
  const logs: string[] = [];
  const log = (object: object, message: string): void =>
    void logs.push(`${message} ${JSON.stringify(object)}`);
  const t = await createTestApp({
    config: {
      models: upstream.modelsConfig(),
      channels: {
        feishu_webhook: {
          enabled: true,
          accounts: {
            bot1: {
              app_id: feishu.appId,
              app_secret: SECRET,
              api_base: feishu.url,
              verification_token: VERIFICATION,
              ...(options.encrypt ? { encrypt_key: ENCRYPT_KEY } : {}),
              ...options.account,
            },
          },
        },
      },
    },
    services: {
      logger: { info: log, warn: log },
      channels: { onHandled: (message, outcome) => void handled.push({ message, outcome }) },
    },
  });
  return {
    t,
    feishu,
    upstream,
    handled,
    logs,
    async post(body, headers = { 'content-type': 'application/json' }) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/webhooks/feishu_webhook/bot1',
        headers,
        payload: body,
      });
      return { status: response.statusCode, body: response.body, json: () => response.json() };
    },
    async close() {
      await t.close();
      await feishu.close();
      await upstream.close();
    },
  };
}

const dm = { chatId: 'oc_dm1', chatType: 'p2p' as const, senderOpenId: 'ou_alice' };

/** An event as Feishu sends it to an app with an Encrypt Key: encrypted and signed. */
function sealed(event: unknown, key = ENCRYPT_KEY): { body: string; headers: Record<string, string> } {
  const body = encryptEvent(JSON.stringify(event), key);
  return { body, headers: signedHeaders(body, key) };
}

describe('feishu webhook', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('answers the URL check with its challenge when the verification token matches, else 401', async () => {
    h = await start();
    const good = await h.post(
      JSON.stringify({ challenge: 'ch-123', token: VERIFICATION, type: 'url_verification' }),
    );
    assert.equal(good.status, 200, good.body);
    assert.deepEqual(good.json(), { challenge: 'ch-123' });
    const bad = await h.post(
      JSON.stringify({ challenge: 'ch-123', token: 'guess', type: 'url_verification' }),
    );
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.json(), { error: 'bad verification token' });
  });

  it('answers an encrypted URL check; one encrypted with another key is a 401', async () => {
    h = await start({ encrypt: true });
    const check = { challenge: 'ch-enc', token: VERIFICATION, type: 'url_verification' };
    const good = await h.post(encryptEvent(JSON.stringify(check), ENCRYPT_KEY));
    assert.equal(good.status, 200, good.body);
    assert.deepEqual(good.json(), { challenge: 'ch-enc' });
    const bad = await h.post(encryptEvent(JSON.stringify(check), 'another-key'));
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.json(), { error: 'the event does not decrypt with the encrypt_key' });
  });

  it('an encrypted, signed message event is acknowledged and answered with a card through the API', async () => {
    h = await start({ encrypt: true });
    const { body, headers } = sealed(h.feishu.messageEvent({ ...dm, text: 'hello over http' }));
    const answer = await h.post(body, headers);
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(answer.json(), {});
    await waitFor(() => h!.feishu.textsIn('oc_dm1').includes(REPLY), 'the answer');
    assert.equal(h.feishu.sent[0]?.msgType, 'interactive');
    assert.match(JSON.stringify(h.upstream.requests[0]), /hello over http/);
  });

  it('requests failing the signature, the encryption or the token are 401s that start no turn', async () => {
    h = await start({ encrypt: true });
    const event = h.feishu.messageEvent({ ...dm, text: 'forged' });
    const { body, headers } = sealed(event);
    const cases: Array<[string, string, Record<string, string>, string]> = [
      ['tampered body', body.replace(/.{4}"}$/, 'AAAA"}'), headers, 'bad signature'],
      ['wrong signature', body, { ...headers, 'x-lark-signature': '0'.repeat(64) }, 'bad signature'],
      ['no signature', body, { 'content-type': 'application/json' }, 'the event is not signed'],
      ['another key', ...Object.values(sealed(event, 'other-key')), 'bad signature'] as [
        string,
        string,
        Record<string, string>,
        string,
      ],
      [
        'plain event, wrong token',
        JSON.stringify({ ...event, header: { ...(event['header'] as object), token: 'nope' } }),
        signedHeaders(
          JSON.stringify({ ...event, header: { ...(event['header'] as object), token: 'nope' } }),
          ENCRYPT_KEY,
        ),
        'bad verification token',
      ],
    ];
    for (const [name, payload, caseHeaders, error] of cases) {
      const answer = await h.post(payload, caseHeaders);
      assert.equal(answer.status, 401, `${name}: ${answer.body}`);
      assert.deepEqual(answer.json(), { error }, name);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(h.upstream.requestCount, 0);
    assert.equal(h.handled.length, 0);
    assert.equal(h.feishu.sent.length, 0);
  });

  it('without an encrypt_key: a wrong token or an encrypted body is a 401; the right token starts a turn', async () => {
    h = await start();
    const event = h.feishu.messageEvent({ ...dm, text: 'plain' });
    const wrong = { ...event, header: { ...(event['header'] as object), token: 'nope' } };
    assert.equal((await h.post(JSON.stringify(wrong))).status, 401);
    const encrypted = await h.post(encryptEvent(JSON.stringify(event), ENCRYPT_KEY));
    assert.equal(encrypted.status, 401);
    assert.deepEqual(encrypted.json(), { error: 'an encrypted event, but the account has no encrypt_key' });
    assert.equal((await h.post('not json')).status, 400);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(h.upstream.requestCount, 0);
    const good = await h.post(JSON.stringify(event));
    assert.equal(good.status, 200, good.body);
    await waitFor(() => h!.feishu.textsIn('oc_dm1').includes(REPLY), 'the answer');
  });

  it('acknowledges at once and answers later: a slow agent does not hold the request', async () => {
    h = await start({ latencyMs: 1500 });
    const started = Date.now();
    const answer = await h.post(JSON.stringify(h.feishu.messageEvent({ ...dm, text: 'slow one' })));
    assert.equal(answer.status, 200);
    assert.ok(Date.now() - started < 1000, `answered in ${Date.now() - started} ms`);
    assert.equal(h.handled.length, 0);
    await waitFor(() => h!.feishu.textsIn('oc_dm1').includes(REPLY), 'the later answer');
  });

  it('a redelivered event starts no second turn, nor does its event id with a new message id', async () => {
    h = await start();
    const event = h.feishu.messageEvent({ ...dm, text: 'once', messageId: 'om_w1', eventId: 'ev_w1' });
    const again = h.feishu.messageEvent({ ...dm, text: 'once', messageId: 'om_w2', eventId: 'ev_w1' });
    for (const body of [event, event, again]) assert.equal((await h.post(JSON.stringify(body))).status, 200);
    await waitFor(() => h!.handled.length === 1, 'one turn');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(h.upstream.requestCount, 1);
  });

  it('in groups it answers mentions of itself, learning its open_id from the bot info API', async () => {
    h = await start();
    const group = { chatId: 'oc_g1', chatType: 'group' as const, senderOpenId: 'ou_alice' };
    await h.post(JSON.stringify(h.feishu.messageEvent({ ...group, text: 'not for the bot' })));
    await h.post(
      JSON.stringify(h.feishu.messageEvent({ ...group, text: '@bot for the bot', messageId: 'om_g2' })),
    );
    await waitFor(() => h!.handled.length === 2, 'both messages');
    const outcomes = Object.fromEntries(h.handled.map((entry) => [entry.message.text, entry.outcome]));
    assert.deepEqual(outcomes, { 'not for the bot': 'ignored', 'for the bot': 'replied' });
    assert.equal(h.feishu.sent[0]?.replyTo, 'om_g2');
    assert.equal(h.feishu.calls.filter((call) => call.call === 'GET /open-apis/bot/v3/info').length, 1);
  });

  it('messages of other bots and kinds it cannot read start nothing', async () => {
    h = await start();
    await h.post(JSON.stringify(h.feishu.messageEvent({ ...dm, text: 'from an app', senderType: 'app' })));
    const sticker = h.feishu.messageEvent({ ...dm, text: 'x' });
    const message = (sticker['event'] as { message: Record<string, unknown> }).message;
    message['message_type'] = 'sticker';
    message['content'] = JSON.stringify({ file_key: 'sticker' });
    assert.equal((await h.post(JSON.stringify(sticker))).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(h.handled.length, 0);
  });

  it('logs carry neither the secrets nor the message text', async () => {
    h = await start({ encrypt: true });
    const { body, headers } = sealed(h.feishu.messageEvent({ ...dm, text: 'private words' }));
    await h.post(body, headers);
    await h.post(body, { ...headers, 'x-lark-signature': 'f'.repeat(64) });
    await waitFor(() => h!.handled.length === 1, 'the message');
    const all = h.logs.join('\n');
    for (const secret of [SECRET, VERIFICATION, ENCRYPT_KEY, 'private words'])
      assert.ok(!all.includes(secret), secret);
  });
});
