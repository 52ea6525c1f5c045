// kill -9 at each step of a compaction, on a real server process: while the memory flush turn is
// with the model, while the summariser is (the summary not written yet), and once it was written.
// After a restart the session is as before the compaction or as after it, never a mix, and every
// raw message is still readable, in order.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { run, waitFor, type Started } from '../server/serve-process.ts';

interface Message {
  id: number;
  role: string;
  content: string | null;
  folded?: boolean;
  summaryId?: number;
}

const TURNS = 6;
const SUMMARY = 'The user asked about tea, one question at a time, and was answered each time.';

describe('compaction survives kill -9 at every step', () => {
  let upstream: FakeUpstream;
  let dir: string;
  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Noted.' });
    dir = await mkdtemp(join(tmpdir(), 'compaction-crash-'));
    await writeFile(
      join(dir, 'config.yaml'),
      [
        'models:',
        '  default_provider: up',
        '  providers:',
        '    up:',
        `      base_url: ${upstream.url}`,
        '      model: m',
        'agents:',
        '  defaults:',
        '    compaction:',
        '      keep_recent_tokens: 10',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  });

  let running: Started | undefined;
  const kill = async (server: Started): Promise<void> => {
    server.child.kill('SIGKILL');
    await server.exited;
  };
  // A test that fails half-way leaves no server holding the data root.
  afterEach(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) await kill(running);
  });
  const start = async (): Promise<{ server: Started; url: string }> => {
    const server = run(['serve', '--config', 'config.yaml', '--port', '0'], dir);
    running = server;
    try {
      // A start from source on a busy machine is slow: wait for the line, however long it takes.
      const [, url] = await waitFor(server, /listening on (http:\/\/127\.0\.0\.1:\d+)/, 90_000);
      return { server, url: url ?? '' };
    } catch (error) {
      await kill(server);
      throw error;
    }
  };
  const messages = async (url: string, sessionId: string): Promise<Message[]> => {
    const response = await fetch(`${url}/api/v1/agents/main/sessions/${sessionId}/messages?size=100`);
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Message[] }).data;
  };
  const untilRequests = async (count: number): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (upstream.requestCount < count) {
      if (Date.now() > deadline) throw new Error(`the model got ${upstream.requestCount} of ${count} calls`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const chat = async (url: string, sessionId: string, turns: number): Promise<void> => {
    for (let turn = 1; turn <= turns; turn += 1) {
      const response = await fetch(`${url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'main',
          sessionId,
          messages: [{ role: 'user', content: `question about tea number ${'I'.repeat(turn)}` }],
        }),
      });
      assert.equal(response.status, 200, await response.text());
    }
  };
  /** The raw messages, without the summary entries or the folded marks. */
  const raw = (list: Message[]) =>
    list
      .filter((message) => message.role !== 'summary')
      .map(({ id, role, content }) => ({ id, role, content }));
  /** The session before the compaction: nothing folded, no summary. */
  const assertBefore = (list: Message[], expected: ReturnType<typeof raw>) => {
    assert.deepEqual(raw(list), expected, 'every raw message, in order');
    assert.equal(list.filter((message) => message.role === 'summary').length, 0, 'no summary');
    assert.equal(list.filter((message) => message.folded).length, 0, 'nothing marked folded');
  };
  const compact = (url: string, sessionId: string) =>
    fetch(`${url}/api/v1/agents/main/sessions/${sessionId}/compact`, { method: 'POST' });

  it('killed while the memory flush turn is with the model: as before', async () => {
    let { server, url } = await start();
    await chat(url, 'flush', TURNS);
    const expected = raw(await messages(url, 'flush'));
    assert.equal(expected.length, TURNS * 2);
    const seen = upstream.requestCount;
    upstream.failNext('hang', 1);
    void compact(url, 'flush').catch(() => undefined);
    await untilRequests(seen + 1);
    await kill(server);
    ({ server, url } = await start());
    try {
      const list = await messages(url, 'flush');
      // The flush is a silent turn: whatever it kept, the session's own messages are untouched.
      assert.deepEqual(raw(list).slice(0, expected.length), expected);
      assert.equal(list.filter((message) => message.role === 'summary').length, 0);
      assert.equal(list.filter((message) => message.folded).length, 0);
    } finally {
      await kill(server);
    }
  });

  it('killed while the summariser is with the model (no summary written yet): as before', async () => {
    let { server, url } = await start();
    await chat(url, 'summary', TURNS);
    const expected = raw(await messages(url, 'summary'));
    const seen = upstream.requestCount;
    // The flush answers; the summariser's call hangs.
    upstream.script({ text: 'Nothing to keep.' });
    upstream.failNext('ok', 1);
    upstream.failNext('hang', 1);
    void compact(url, 'summary').catch(() => undefined);
    await untilRequests(seen + 2);
    await kill(server);
    ({ server, url } = await start());
    try {
      assertBefore(await messages(url, 'summary'), expected);
      // And the session still compacts after the restart.
      upstream.script({ text: 'Nothing to keep.' }, { text: SUMMARY });
      const done = await compact(url, 'summary');
      const answer = (await done.json()) as { compacted: boolean; reason?: string };
      assert.equal(answer.compacted, true, JSON.stringify(answer));
      const list = await messages(url, 'summary');
      assert.deepEqual(raw(list), expected, 'every raw message is still there, in order');
      assert.equal(list.filter((message) => message.role === 'summary').length, 1);
    } finally {
      await kill(server);
    }
  });

  it('killed right after the summary was written: as after, the same on every restart', async () => {
    let { server, url } = await start();
    await chat(url, 'after', TURNS);
    const expected = raw(await messages(url, 'after'));
    upstream.script({ text: 'Nothing to keep.' }, { text: SUMMARY });
    const done = await compact(url, 'after');
    assert.equal(((await done.json()) as { compacted: boolean }).compacted, true);
    const compacted = await messages(url, 'after');
    await kill(server);
    ({ server, url } = await start());
    try {
      const list = await messages(url, 'after');
      assert.deepEqual(list, compacted, 'the compacted state, exactly');
      assert.deepEqual(raw(list), expected, 'every raw message, in order');
      const summary = list.find((message) => message.role === 'summary');
      assert.equal(summary?.content, SUMMARY);
      const folded = list.filter((message) => message.folded);
      assert.ok(folded.length > 0 && folded.length < expected.length, 'older turns folded, the newest kept');
      // Folded messages are the oldest ones: a prefix of the session, never a mix.
      assert.deepEqual(
        folded.map((message) => message.id),
        expected.slice(0, folded.length).map((message) => message.id),
      );
    } finally {
      await kill(server);
    }
  });
});
