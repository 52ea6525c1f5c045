// Backup of a busy server (turns running while the archive is taken) restored onto another data
// root: the restored server answers with the same sessions, agents, skills, cron tasks and accounts.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/server.ts';
import { cli, startTestServer, type TestServer } from '../cli/cli-harness.ts';

async function chat(url: string, sessionId: string, text: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'main', sessionId, messages: [{ role: 'user', content: text }] }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  return body.choices[0]?.message.content ?? '';
}

async function get<T>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}/api/v1${path}`);
  assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
  return (await response.json()) as T;
}

type Page<T> = { data: T[]; total: number };
type Message = { role: string; content: unknown };

/** Every session of agent main with its messages (role and content). */
async function conversations(url: string): Promise<Map<string, Message[]>> {
  const sessions = await get<Page<{ key: string }>>(url, '/agents/main/sessions?size=100');
  const result = new Map<string, Message[]>();
  for (const session of sessions.data) {
    const messages = await get<Page<{ message?: Message; role?: string; content?: unknown }>>(
      url,
      `/agents/main/sessions/${encodeURIComponent(session.key)}/messages?size=100`,
    );
    result.set(
      session.key,
      messages.data.map((item) => {
        const message = (item.message ?? item) as Message;
        return { role: message.role, content: message.content };
      }),
    );
  }
  return result;
}

describe('agent-service backup and restore', () => {
  let t: TestServer;
  let restored: RunningServer | undefined;
  let target: string;
  const run = (...args: string[]) => cli([...args, '--url', t.url], t.home);

  before(async () => {
    t = await startTestServer('security:\n  requireAuth: false\n');
    target = await mkdtemp(join(tmpdir(), 'restore-'));
  });
  after(async () => {
    await restored?.close();
    await t.close();
    await rm(target, { recursive: true, force: true });
  });

  it('a backup taken while turns run, restored on another data root, answers with the same state', async () => {
    assert.equal((await run('agents', 'add', 'writer', '-n', 'Writer')).code, 0);
    assert.equal((await run('skills', 'create', 'pdf', '-d', 'Work with PDFs', '--content', 'Use pdftotext.')).code, 0);
    const cron = await run('cron', 'create', 'hourly', '-s', '0 * * * *', '-m', 'hello', '-a', 'main', '--json');
    assert.equal(cron.code, 0, cron.err);
    const account = await run('channels', 'add', 'api', 'backoffice', '-n', 'Back office');
    assert.equal(account.code, 0, account.err);
    for (const id of ['alpha', 'beta', 'gamma']) {
      await chat(t.url, id, `hello from ${id}`);
      await chat(t.url, id, `second message of ${id}`);
    }
    // Busy: turns keep running while the backup is taken.
    let busy = true;
    const turns = (async () => {
      let n = 0;
      while (busy) await chat(t.url, `busy-${n % 4}`, `turn ${n++}`);
      return n;
    })();
    const file = join(t.home, 'backup.zip');
    const backup = await run('backup', file);
    busy = false;
    assert.ok((await turns) > 0);
    assert.equal(backup.code, 0, backup.err);
    assert.match(backup.out, /backup of the server at .* written to/);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const before = await conversations(t.url);

    const restore = await cli(
      ['restore', file, '--data', join(target, 'data'), '-c', join(target, 'config.yaml')],
      t.home,
    );
    assert.equal(restore.code, 0, restore.err);
    const again = await cli(['restore', file, '--data', join(target, 'data'), '-c', join(target, 'other.yaml')], t.home);
    assert.equal(again.code, 1);
    assert.match(again.err, /is not empty/);

    restored = await startServer({
      config: join(target, 'config.yaml'),
      port: 0,
      cwd: target,
      env: {},
      say: () => undefined,
      logLevel: 'silent',
    });
    const after = await conversations(restored.url);
    for (const id of ['alpha', 'beta', 'gamma']) assert.deepEqual(after.get(id), before.get(id), id);
    // A session busy during the copy is there as it was at some moment: a prefix of what it has now.
    // A turn in flight at that moment is there as far as it had gone: its question (stored when the
    // turn opens), without its answer yet; every answer follows its question.
    for (const [key, messages] of after) {
      const now = before.get(key) ?? [];
      assert.deepEqual(messages, now.slice(0, messages.length), key);
      assert.deepEqual(
        messages.map((message) => message.role),
        messages.map((_, index) => (index % 2 === 0 ? 'user' : 'assistant')),
        `${key} holds questions each followed by its answer`,
      );
    }
    // The restored server goes on with a conversation.
    assert.match(await chat(restored.url, 'alpha', 'and now?'), /./);
    const agents = await get<Page<{ ruleChain: { id: string } }>>(restored.url, '/agents?size=100');
    assert.deepEqual(agents.data.map((agent) => agent.ruleChain.id).sort(), ['main', 'writer']);
    const skills = await get<unknown>(restored.url, '/skills');
    assert.match(JSON.stringify(skills), /"pdf"/);
    const tasks = await get<unknown>(restored.url, '/cron');
    assert.match(JSON.stringify(tasks), /"hourly"/);
    const channels = await get<{ platforms: Record<string, { accounts: Record<string, unknown> }> }>(
      restored.url,
      '/channels',
    );
    assert.ok(channels.platforms['api']?.accounts['backoffice']);
  });

  it('clustered mode says to use pg_dump', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clustered-'));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'config.yaml'), 'data:\n  database_url: postgres://127.0.0.1:5432/test\n');
    const result = await cli(['backup', join(dir, 'b.zip'), '-c', join(dir, 'config.yaml')], dir);
    assert.equal(result.code, 1);
    assert.match(result.err, /pg_dump/);
    await rm(dir, { recursive: true, force: true });
  });
});
