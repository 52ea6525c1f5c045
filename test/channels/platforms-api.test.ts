// GET /channels/platforms, and what a platform's declaration of its account fields decides: which
// fields are accepted, required and write-only, with no other list to keep in step.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import {
  platformAccount,
  secretField,
  textField,
  type AccountOf,
} from '../../src/channels/account-schema.ts';
import type { ChannelAccount, ChannelAdapter, ConnectionLink } from '../../src/channels/types.ts';
import { PLATFORMS } from '../../src/config/schema.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

/** A platform whose accounts take a field no built-in platform has: a write-only `pin_code`. */
const pinAccount = platformAccount({
  platform: 'telegram',
  label: 'Pin chat',
  intro: 'A chat platform of the tests.',
  fields: {
    app_secret: secretField({ label: 'Token', required: true, missing: 'the token' }),
    pin_code: secretField({ label: 'PIN code', help: 'Six digits.' }),
    room: textField({ label: 'Room' }),
  },
});

class PinAdapter implements ChannelAdapter<AccountOf<typeof pinAccount>> {
  readonly platform = 'telegram' as const;
  readonly accountFields = pinAccount;
  readonly capabilities = { editMessage: false, typing: false, images: false, files: false };
  readonly maxUploadBytes = { image: 1, file: 1 };
  inboundStyle(): 'long-connection' {
    return 'long-connection';
  }
  connect(_account: ChannelAccount, link: ConnectionLink): Promise<void> {
    link.connected();
    return new Promise((resolve) => link.signal.addEventListener('abort', () => resolve(), { once: true }));
  }
  sendText(): Promise<never> {
    return Promise.reject(new Error('not used'));
  }
  sendImage(): Promise<never> {
    return Promise.reject(new Error('not used'));
  }
  sendFile(): Promise<never> {
    return Promise.reject(new Error('not used'));
  }
}

interface FieldView {
  key: string;
  label: string;
  help?: string;
  secret: boolean;
  reported?: boolean;
  required: boolean;
  mode?: string;
  options?: Array<{ value: string; label: string }>;
}
interface PlatformForm {
  id: string;
  label: string;
  intro: string;
  groups: boolean;
  mainSecret: string;
  fields: FieldView[];
}

describe('GET /channels/platforms', () => {
  let t: TestApp | undefined;
  afterEach(() => t?.close());

  it('lists every platform in order, each with its fields, labels, help and secrets', async () => {
    t = await createTestApp();
    const answer = await t.app.inject({ method: 'GET', url: '/api/v1/channels/platforms' });
    assert.equal(answer.statusCode, 200, answer.body);
    const platforms = answer.json().platforms as PlatformForm[];
    assert.deepEqual(
      platforms.map((platform) => platform.id),
      [...PLATFORMS],
    );
    const byId = new Map(platforms.map((platform) => [platform.id, platform]));
    assert.deepEqual(byId.get('api'), {
      id: 'api',
      label: 'API',
      intro:
        'Keys for applications that call the chat endpoint. Each application should get its own account.',
      groups: false,
      mainSecret: 'api_key',
      fields: [
        {
          key: 'api_key',
          label: 'API key',
          help: 'Left empty on create, a key is generated and shown once. At least 16 characters.',
          secret: true,
          reported: true,
          required: false,
        },
      ],
    });
    const telegram = byId.get('telegram');
    assert.equal(telegram?.mainSecret, 'app_secret');
    assert.deepEqual(
      telegram?.fields.map(({ key, secret, reported, required }) => ({ key, secret, reported, required })),
      [
        { key: 'app_secret', secret: true, reported: true, required: true },
        { key: 'api_base', secret: true, reported: false, required: false },
      ],
    );
    // Issue 20 item 12: the Telegram form does not speak of Lark; the Feishu form does.
    const apiBaseHelp = (id: string) => byId.get(id)?.fields.find((field) => field.key === 'api_base')?.help;
    assert.doesNotMatch(apiBaseHelp('telegram') ?? '', /Lark/);
    assert.match(apiBaseHelp('feishu') ?? '', /Lark international/);
    // WeCom's mode chooses the fields: one entry per mode where the label changes.
    const wecom = byId.get('wecom');
    assert.deepEqual(wecom?.fields[0], {
      key: 'mode',
      label: 'Mode',
      secret: false,
      required: false,
      options: [
        { value: 'bot', label: 'Smart robot (long connection)' },
        { value: 'app', label: 'Self-built app (callbacks)' },
      ],
    });
    assert.deepEqual(
      wecom?.fields.filter((field) => field.key === 'app_id').map(({ label, mode }) => ({ label, mode })),
      [
        { label: 'Bot ID', mode: 'bot' },
        { label: 'Corp ID', mode: 'app' },
      ],
    );
    assert.equal(wecom?.fields.find((field) => field.key === 'token')?.mode, 'app');
  });

  it('answers the declaration of an adapter handed in, field for field', async () => {
    t = await createTestApp({ services: { channels: { adapters: [new PinAdapter()] } } });
    const platforms = (await t.app.inject({ method: 'GET', url: '/api/v1/channels/platforms' })).json()
      .platforms as PlatformForm[];
    assert.deepEqual(
      platforms.map((platform) => platform.id),
      [...PLATFORMS],
      'it replaces the built-in telegram adapter, in its place',
    );
    const pin = platforms.find((platform) => platform.id === 'telegram');
    assert.deepEqual(pin, {
      id: 'telegram',
      label: 'Pin chat',
      intro: 'A chat platform of the tests.',
      groups: true,
      mainSecret: 'app_secret',
      fields: [
        { key: 'app_secret', label: 'Token', secret: true, reported: true, required: true },
        {
          key: 'pin_code',
          label: 'PIN code',
          help: 'Six digits.',
          secret: true,
          reported: true,
          required: false,
        },
        { key: 'room', label: 'Room', secret: false, required: false },
      ],
    });
  });
});

describe('a platform declaration decides its account fields', () => {
  let t: TestApp | undefined;
  afterEach(() => t?.close());

  it('a field declared secret is write-only: stored, reported in secretsSet, never shown', async () => {
    t = await createTestApp({ services: { channels: { adapters: [new PinAdapter()] } } });
    const pin = 'PIN-481516-never-shown';
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/telegram/accounts',
      payload: { id: 'p1', app_secret: 'TOKEN-2342-never-shown', pin_code: pin, room: 'lobby' },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().hasSecret, true);
    assert.deepEqual(created.json().secretsSet, ['pin_code']);
    assert.equal(created.json().room, 'lobby', 'a plain declared field is shown');
    const reads = await Promise.all(
      [
        '/api/v1/channels',
        '/api/v1/channels/telegram',
        '/api/v1/channels/telegram/accounts/p1',
        '/api/v1/config',
      ].map((url) => t!.app.inject({ method: 'GET', url })),
    );
    for (const read of [created, ...reads]) {
      assert.ok(read.statusCode < 300, read.body);
      assert.doesNotMatch(read.body, /PIN-481516|TOKEN-2342/);
    }
    assert.match(await readFile(t.configPath, 'utf8'), /pin_code: PIN-481516-never-shown/);
    // An empty secret keeps the stored one; a new one replaces it.
    const kept = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/telegram/accounts/p1',
      payload: { pin_code: '', name: 'Pinned' },
    });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.deepEqual(kept.json().secretsSet, ['pin_code']);
    assert.match(await readFile(t.configPath, 'utf8'), /pin_code: PIN-481516-never-shown/);
  });

  it("a field the declaration lacks is refused, and a required one is named in the problem's words", async () => {
    t = await createTestApp({ services: { channels: { adapters: [new PinAdapter()] } } });
    const create = (payload: Record<string, unknown>) =>
      t!.app.inject({ method: 'POST', url: '/api/v1/channels/telegram/accounts', payload });
    const foreign = await create({ id: 'p2', app_secret: 'token-0001', encrypt_key: 'k-0001' });
    assert.equal(foreign.statusCode, 400);
    assert.deepEqual(foreign.json(), { error: 'telegram account "p2": encrypt_key: not used by telegram' });
    const missing = await create({ id: 'p3', pin_code: '123456' });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json(), { error: 'telegram account "p3": app_secret: the token is required' });
    const disabled = await create({ id: 'p4', pin_code: '123456', enabled: false });
    assert.equal(disabled.statusCode, 201, 'a disabled account may lack its credentials');
    const wrongType = await create({ id: 'p5', app_secret: 'token-0001', room: 7 });
    assert.equal(wrongType.statusCode, 400);
    assert.match(wrongType.json().error, /^telegram account "p5": room: /);
  });

  it('a write of the config file is checked against the declarations too, nothing written on a refusal', async () => {
    t = await createTestApp();
    const before = await readFile(t.configPath, 'utf8');
    const refused = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: {
        channels: {
          telegram: { enabled: true, accounts: { x1: { app_secret: 'token-0001', mode: 'bot' } } },
        },
      },
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.json().error, /channels\.telegram\.accounts\.x1\.mode: not used by telegram/);
    assert.equal(await readFile(t.configPath, 'utf8'), before);
    // A missing credential is no reason to refuse the file: the account shows it in its state.
    const saved = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: { channels: { telegram: { enabled: true, accounts: { x2: { name: 'later' } } } } },
    });
    assert.equal(saved.statusCode, 200, saved.body);
    const account = await t.app.inject({ method: 'GET', url: '/api/v1/channels/telegram/accounts/x2' });
    assert.equal(account.json().status.state, 'error');
    assert.equal(account.json().status.error, 'app_secret: the bot token is required');
  });

  it('every built-in secret field is write-only: no view shows any of them', async () => {
    t = await createTestApp();
    const app = t.app;
    const platforms = (await app.inject({ method: 'GET', url: '/api/v1/channels/platforms' })).json()
      .platforms as PlatformForm[];
    const shown: string[] = [];
    for (const platform of platforms) {
      const payload: Record<string, unknown> = { id: 'all', enabled: false };
      const values: string[] = [];
      for (const field of platform.fields.filter((field) => field.secret)) {
        // Values in each field's format (an origin, a 43-character AES key), each one unique.
        const mark = `${platform.id.replace('_', '')}${field.key.replace(/_/g, '')}0123456789`;
        const value =
          field.key === 'api_base'
            ? `http://127.0.0.1:9/${mark}`
            : field.key === 'encoding_aes_key'
              ? mark.padEnd(43, 'A').slice(0, 43)
              : `s-${mark}`;
        payload[field.key] = value;
        values.push(value);
      }
      const created = await app.inject({
        method: 'POST',
        url: `/api/v1/channels/${platform.id}/accounts`,
        payload,
      });
      assert.equal(created.statusCode, 201, `${platform.id}: ${created.body}`);
      const read = await app.inject({ method: 'GET', url: `/api/v1/channels/${platform.id}/accounts/all` });
      for (const body of [created.body, read.body]) {
        for (const value of values) if (body.includes(value)) shown.push(`${platform.id}: ${value}`);
      }
      const reported = platform.fields.filter(
        (field) => field.secret && field.reported && field.key !== platform.mainSecret,
      );
      assert.deepEqual(
        [...read.json().secretsSet].sort(),
        [...new Set(reported.map((field) => field.key))].sort(),
        platform.id,
      );
      assert.equal(read.json().hasSecret, true, platform.id);
    }
    assert.deepEqual(shown, []);
  });
});
