// A/B of the CPU a chat turn costs the service: this checkout's service and another build
// (BENCH_BASELINE_ENTRY, e.g. a worktree of main's bin/agent-service.mjs) side by side on one fake
// upstream, in interleaved rounds of the same load, so other work on a shared machine weighs on
// both alike. CPU is each service's user + system time (all threads, /proc) per completed turn.
// BENCH_SESSIONS=1 sends a sessionId (turns stored in the session, round robin over 100 sessions).
// Prints one JSON line: {"bench":"chat-ab", ...}.
// Measured (issue 29, model calls without the openai SDK vs main 1ba4efc, 4 rounds x 4 s, 20
// connections, a 2-core machine at load 20-35): stateless turns 0.66-0.75x the CPU per turn (four
// runs), stored turns 0.76-0.82x (one outlier run of 1.23x with 120 turns in all).
//   BENCH_BASELINE_ENTRY (required) BENCH_ROUNDS (4) BENCH_ROUND_S (5) BENCH_CONNECTIONS (20)
import {
  autocannon,
  BENCH_AGENT,
  codeVersion,
  postJson,
  processCpuMs,
  progress,
  round,
  startHelper,
  startService,
  type Service,
} from './_shared.ts';

const BASELINE = process.env['BENCH_BASELINE_ENTRY'];
if (!BASELINE) throw new Error('BENCH_BASELINE_ENTRY names the other build to compare with');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 4);
const ROUND_S = Number(process.env['BENCH_ROUND_S'] ?? 5);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 20);
const SESSIONS = process.env['BENCH_SESSIONS'] === '1';

interface Tally {
  cpuMs: number;
  turns: number;
  non2xx: number;
  errors: number;
}

async function round1(service: Service, tally: Tally, tag: string): Promise<void> {
  let next = 0;
  const before = processCpuMs(service.pid);
  const result = await autocannon({
    url: `${service.url}/api/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: ROUND_S,
    timeout: 10,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          body: JSON.stringify({
            model: 'bench',
            ...(SESSIONS ? { sessionId: `${tag}-${next++ % 100}` } : {}),
            messages: [{ role: 'user', content: 'hi' }],
          }),
        }),
      },
    ],
  });
  tally.cpuMs += processCpuMs(service.pid) - before;
  tally.turns += result.requests.total;
  tally.non2xx += result.non2xx;
  tally.errors += result.errors + result.timeouts;
}

const upstream = await startHelper('_fake-upstream-process.ts');
const config = {
  models: { default_provider: 'fake', providers: { fake: { base_url: upstream.url, model: 'fake-model' } } },
};
const services: Record<'base' | 'head', Service | undefined> = { base: undefined, head: undefined };
try {
  services.base = await startService(config, { entry: BASELINE });
  services.head = await startService(config);
  const tallies = {
    base: { cpuMs: 0, turns: 0, non2xx: 0, errors: 0 },
    head: { cpuMs: 0, turns: 0, non2xx: 0, errors: 0 },
  };
  for (const name of ['base', 'head'] as const) {
    const service = services[name] as Service;
    await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    await round1(service, { cpuMs: 0, turns: 0, non2xx: 0, errors: 0 }, `warm-${name}`);
  }
  for (let index = 0; index < ROUNDS; index += 1) {
    // Alternate which goes first, so neither always follows the other's leftovers.
    const order = index % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const);
    for (const name of order) await round1(services[name] as Service, tallies[name], `r${index}`);
    progress(
      `chat-ab round ${index + 1}: base ${round(tallies.base.cpuMs / Math.max(1, tallies.base.turns), 3)} ` +
        `head ${round(tallies.head.cpuMs / Math.max(1, tallies.head.turns), 3)} ms CPU/turn so far`,
    );
  }
  const perTurn = (tally: Tally): number => round(tally.cpuMs / Math.max(1, tally.turns), 3);
  console.log(
    JSON.stringify({
      bench: 'chat-ab',
      code: codeVersion(),
      sessions: SESSIONS,
      connections: CONNECTIONS,
      rounds: ROUNDS,
      roundS: ROUND_S,
      baseCpuMsPerTurn: perTurn(tallies.base),
      headCpuMsPerTurn: perTurn(tallies.head),
      headVsBase: round(perTurn(tallies.head) / Math.max(0.001, perTurn(tallies.base)), 2),
      baseTurns: tallies.base.turns,
      headTurns: tallies.head.turns,
      non2xx: tallies.base.non2xx + tallies.head.non2xx,
      errors: tallies.base.errors + tallies.head.errors,
    }),
  );
} finally {
  await services.base?.stop();
  await services.head?.stop();
  await upstream.stop();
}
