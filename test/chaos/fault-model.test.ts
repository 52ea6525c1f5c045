// The fault-injecting fake model itself: each fault kind on the wire, the seeded schedule, counters.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FAULT_KINDS, seededRandom, startFaultModel, type FaultModel } from '../fakes/fault-model.ts';

const ask = (model: FaultModel, stream: boolean, signal?: AbortSignal): Promise<Response> =>
  fetch(`${model.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'ping 1' }] }),
    ...(signal ? { signal } : {}),
  });

describe('fault model', () => {
  let model: FaultModel;
  before(async () => {
    model = await startFaultModel({ retryAfterSeconds: 3 });
  });
  after(async () => {
    await model.close();
  });

  it('answers normally with the last user message in the text, streamed or not', async () => {
    const plain = (await (await ask(model, false)).json()) as {
      choices: Array<{ message: { content: string } }>;
    };
    assert.equal(plain.choices[0]?.message.content, 'Answer to: ping 1');
    const streamed = await (await ask(model, true)).text();
    assert.match(streamed, /"content":"ping /);
    assert.match(streamed, /data: \[DONE\]/);
    assert.equal(model.ok, 2);
  });

  it('injects each scripted fault as described, and counts it', async () => {
    model.reset();
    model.script('error500', 'error429', 'error429-retry', 'malformed', 'disconnect');
    assert.equal((await ask(model, true)).status, 500);
    const limited = await ask(model, true);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), null);
    const retry = await ask(model, true);
    assert.equal(retry.status, 429);
    assert.equal(retry.headers.get('retry-after'), '3');
    const malformed = await (await ask(model, true)).text();
    assert.match(malformed, /"content":"hel\n/);
    assert.doesNotMatch(malformed, /\[DONE\]/);
    const cut = await ask(model, true);
    assert.equal(cut.status, 200);
    await assert.rejects(cut.text());
    assert.equal(model.faults, 5);
    assert.deepEqual(
      model.log.map((entry) => entry.plan),
      ['error500', 'error429', 'error429-retry', 'malformed', 'disconnect'],
    );
  });

  it('a stall sends text and never ends; no-headers never answers; both are held until aborted', async () => {
    model.reset();
    model.script('stall', 'no-headers');
    const stalled = await ask(model, true);
    const reader = (stalled.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /Partial/);
    const never = new AbortController();
    const pending = ask(model, true, never.signal);
    const waitHeld = async (count: number): Promise<void> => {
      while (model.held !== count) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    await waitHeld(2);
    never.abort();
    await assert.rejects(pending);
    await reader.cancel();
    await waitHeld(0);
    assert.deepEqual(
      { stall: model.injected.stall, noHeaders: model.injected['no-headers'] },
      { stall: 1, noHeaders: 1 },
    );
  });

  it('the same seed gives the same schedule, near the asked rate', async () => {
    const schedule = async (seed: number): Promise<string[]> => {
      const seeded = await startFaultModel({ rate: 0.2, seed, kinds: ['error500', 'error429'] });
      try {
        for (let index = 0; index < 50; index += 1) await (await ask(seeded, false)).text();
        return seeded.log.map((entry) => entry.plan);
      } finally {
        await seeded.close();
      }
    };
    const first = await schedule(42);
    assert.deepEqual(await schedule(42), first);
    const faulted = first.filter((plan) => plan !== 'ok').length;
    assert.ok(faulted >= 3 && faulted <= 20, `${faulted} faults in 50 calls`);
    assert.notDeepEqual(await schedule(43), first);
  });

  it('seededRandom is uniform enough and FAULT_KINDS lists every kind', () => {
    const next = seededRandom(5);
    const values = Array.from({ length: 1000 }, next);
    assert.ok(values.every((value) => value >= 0 && value < 1));
    const low = values.filter((value) => value < 0.5).length;
    assert.ok(low > 400 && low < 600);
    assert.equal(FAULT_KINDS.length, 7);
  });
});
