// Graceful everything, on a real single-mode server process: 50 chat turns held in flight at the
// model (the fault model paused on cue), then a config reload and edit, or SIGTERM. Every turn is
// answered, none is dropped, and after SIGTERM the process exits 0 once they are done.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { startFaultModel, type FaultModel } from '../fakes/fault-model.ts';
import { run, waitFor, type Started } from '../server/serve-process.ts';

const TURNS = 50;

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One chat turn; streamed turns are read to the end and their text joined. */
async function chat(url: string, text: string, stream: boolean): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'main', stream, messages: [{ role: 'user', content: text }] }),
  });
  if (!stream) {
    const body = (await response.json()) as { choices?: Array<{ message: { content: string } }> };
    return { status: response.status, text: body.choices?.[0]?.message.content ?? '' };
  }
  let joined = '';
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
    joined += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return { status: response.status, text: joined };
}

describe('graceful under load (single mode, real process)', () => {
  let model: FaultModel;
  let dir: string;
  let server: Started;
  let url: string;

  before(async () => {
    model = await startFaultModel();
  });
  after(async () => {
    await model.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'graceful-'));
    const models = model.modelsConfig();
    await writeFile(join(dir, 'config.yaml'), `${JSON.stringify({ models }, null, 2)}\n`);
    server = run(['serve', '--config', 'config.yaml', '--port', '0'], dir);
    // A start takes under a second, far longer on a machine busy with other work.
    [, url = ''] = await waitFor(server, /listening on (http:\/\/127\.0\.0\.1:\d+)/, 120_000);
    model.reset();
  });
  afterEach(async () => {
    model.resume();
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts TURNS turns (every other one streamed) and waits until all of them wait at the model. */
  async function heldTurns() {
    model.pause();
    const turns = Array.from({ length: TURNS }, (_, index) =>
      chat(url, `turn ${index}`, index % 2 === 1).then((result) => ({ index, ...result })),
    );
    await until(() => model.waiting === TURNS, 60_000, `${TURNS} turns at the model`);
    return turns;
  }

  const assertAllAnswered = (results: Array<{ index: number; status: number; text: string }>) => {
    for (const result of results) {
      assert.equal(result.status, 200, `turn ${result.index}`);
      assert.equal(result.text, `Answer to: turn ${result.index}`);
    }
    assert.equal(results.length, TURNS);
  };

  it('a config reload and a provider edit while 50 turns are in flight drop none of them', async () => {
    const turns = await heldTurns();
    const reload = await fetch(`${url}/api/v1/config/models/reload`, { method: 'POST' });
    assert.equal(reload.status, 200);
    const edit = await fetch(`${url}/api/v1/config/models/providers/faulty`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fault-model-2' }),
    });
    assert.equal(edit.status, 200, await edit.text());
    const agent = await fetch(`${url}/api/v1/agents/main/reload`, { method: 'POST' });
    assert.ok(agent.ok, `agent reload: ${agent.status}`);
    model.resume();
    assertAllAnswered(await Promise.all(turns));
    assert.equal(model.calls, TURNS, 'one model call per turn: nothing was retried or run twice');
    // The next turn runs on the edited config.
    const next = await chat(url, 'after the reload', false);
    assert.deepEqual(next, { status: 200, text: 'Answer to: after the reload' });
  });

  it('SIGTERM with 50 turns in flight finishes every one, then exits 0', async () => {
    const turns = await heldTurns();
    server.child.kill('SIGTERM');
    await waitFor(server, /SIGTERM: finishing in-flight requests/, 60_000);
    model.resume();
    assertAllAnswered(await Promise.all(turns));
    assert.equal(await server.exited, 0);
    assert.equal(model.calls, TURNS);
  });
});
