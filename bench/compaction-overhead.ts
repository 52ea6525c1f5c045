// What compaction costs a turn that does not compact: the time of the context check (load the
// summary and the recent messages, count tokens) for a session below its trigger, and whole turns
// with compaction on and off against the same in-process scripted model. Also checks that no extra
// model call is made. Prints one JSON line.
import { createTestApp } from '../test/fakes/app-harness.ts';
import { agentDefinition } from '../test/fakes/builders.ts';
import { createScriptedModel } from '../test/fakes/scripted-model.ts';
import { Compactor } from '../src/turns/compactor.ts';
import { memoryAccess } from '../src/turns/memory-access.ts';
import { percentile } from './_memory-index.ts';

const TURNS = Number(process.env['BENCH_TURNS'] ?? 200);
const model = createScriptedModel({ window: 10_000_000 });
const t = await createTestApp({
  config: {
    engine: { model_workers: 0 },
    models: {
      default_provider: 'scripted',
      providers: {
        scripted: { base_url: 'http://127.0.0.1:9/v1', model: 'scripted-1', context_window: 10_000_000 },
      },
    },
  },
  services: { models: { fetch: model.fetch, maxRetries: 0 } },
});
try {
  for (const [id, enabled] of [
    ['on', true],
    ['off', false],
  ] as const) {
    const definition = agentDefinition(id, { systemPrompt: 'You are a bench agent.', tools: [] });
    (definition.metadata.nodes[0] as { configuration: Record<string, unknown> }).configuration['compaction'] =
      { enabled };
    await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: definition });
  }
  const turn = (agentId: string, index: number) =>
    t.services.turns.complete({
      agentId,
      input: `message ${index} about nothing in particular`,
      session: {
        key: `agent:${agentId}:channel:api:scope:per_peer:s`,
        info: { agentId, channel: 'api', scope: 'per_peer' },
      },
      signal: AbortSignal.timeout(30_000),
    });
  const timed = async (agentId: string): Promise<number[]> => {
    const times: number[] = [];
    for (let index = 0; index < TURNS; index += 1) {
      const start = performance.now();
      await turn(agentId, index);
      times.push(performance.now() - start);
    }
    return times;
  };
  // Interleaved warm-up, then each measured.
  for (let index = 0; index < 20; index += 1) {
    await turn('on', index);
    await turn('off', index);
  }
  const off = await timed('off');
  const on = await timed('on');
  const callsPerTurn = model.count('turn') / ((TURNS + 20) * 2);
  // The context check alone, on the session just built (below its trigger).
  const { services } = t;
  const compactor = new Compactor({
    sessions: services.sessions,
    defaults: () => undefined,
    models: services.models,
  });
  const control = compactor.control(
    {
      key: 'agent:on:channel:api:scope:per_peer:s',
      agentId: 'on',
      memory: memoryAccess(services.memory, services.sessionSearch, 'on', undefined),
    },
    (history) => history,
  );
  const request = {
    system: [{ role: 'system' as const, content: 'You are a bench agent.' }],
    inputs: [{ role: 'user' as const, content: 'hello' }],
    tools: [],
    provider: services.models.get('scripted'),
    model: 'scripted-1',
    window: 10_000_000,
    reserve: 4096,
    signal: AbortSignal.timeout(60_000),
  };
  const checks: number[] = [];
  const before = model.requests.length;
  for (let index = 0; index < 300; index += 1) {
    const start = performance.now();
    await control.prepare(request);
    checks.push(performance.now() - start);
  }
  // What a turn without compaction reads instead: the history cut to the store's limits.
  const loads: number[] = [];
  for (let index = 0; index < 300; index += 1) {
    const start = performance.now();
    await services.sessions.history('agent:on:channel:api:scope:per_peer:s');
    loads.push(performance.now() - start);
  }
  const round = (value: number) => Math.round(value * 1000) / 1000;
  console.log(
    JSON.stringify({
      bench: 'compaction-overhead',
      turns: TURNS,
      sessionMessages: (TURNS + 20) * 2,
      modelCallsPerTurn: callsPerTurn,
      modelCallsByCheck: model.requests.length - before,
      contextCheckMs: { p50: round(percentile(checks, 0.5)), p95: round(percentile(checks, 0.95)) },
      plainHistoryLoadMs: { p50: round(percentile(loads, 0.5)), p95: round(percentile(loads, 0.95)) },
      turnMs: {
        compactionOn: { p50: round(percentile(on, 0.5)), p95: round(percentile(on, 0.95)) },
        compactionOff: { p50: round(percentile(off, 0.5)), p95: round(percentile(off, 0.95)) },
      },
      // What compaction adds to a turn that does not compact: the whole turn on minus off, and the
      // context check minus the plain history load it replaces.
      addedTurnP50Ms: round(percentile(on, 0.5) - percentile(off, 0.5)),
      addedCheckP50Ms: round(percentile(checks, 0.5) - percentile(loads, 0.5)),
      goalMs: 1,
    }),
  );
} finally {
  await t.close();
}
