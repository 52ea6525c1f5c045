// Chat turns that use the database: POST /api/v1/chat/completions with a sessionId (so each turn
// loads the session's history and appends to it) on `agent-service serve` with the embedded libsql
// file, then on one with data.database_url on PostgreSQL (TEST_DATABASE_URL, default the local
// server; a schema of its own, dropped at the end). Same agent, fake upstream and load on both.
// Prints one JSON line: {"bench":"chat-postgres", ...}.
import { createTestDatabase } from '../test/fakes/test-database.ts';
import {
  autocannon,
  BENCH_AGENT,
  codeVersion,
  postJson,
  progress,
  round,
  startHelper,
  startService,
  watchOtherCpu,
} from './_shared.ts';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 20);
const WARM_S = 2;
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
/** Conversations the turns are spread over, round robin: each grows by two messages a turn. */
const SESSIONS = 100;

interface Figures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  otherCpuPct: number;
}

/** Turns against `url` for `seconds`, each in the next of SESSIONS conversations. */
async function turns(url: string, seconds: number, prefix: string): Promise<Figures> {
  let next = 0;
  const other = watchOtherCpu();
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          body: JSON.stringify({
            model: 'bench',
            sessionId: `${prefix}-${next++ % SESSIONS}`,
            messages: [{ role: 'user', content: 'hi' }],
          }),
        }),
      },
    ],
  });
  return {
    rps: round(result.requests.total / (result.duration || seconds)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    otherCpuPct: other.stop(),
  };
}

async function measure(
  label: string,
  upstreamUrl: string,
  databaseUrl: string,
): Promise<Figures & { errorLogLines: number }> {
  const service = await startService({
    data: { root_dir: './data', database_url: databaseUrl },
    models: { default_provider: 'fake', providers: { fake: { base_url: upstreamUrl, model: 'fake-model' } } },
  });
  try {
    await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    const url = `${service.url}/api/v1/chat/completions`;
    progress(
      `chat-postgres: ${label}, ${CONNECTIONS} connections over ${SESSIONS} sessions, ${DURATION_S} s`,
    );
    await turns(url, WARM_S, 'warm');
    const figures = await turns(url, DURATION_S, 'measured');
    const errorLogLines = service.errorLogLines();
    if (errorLogLines.length > 0) progress(`${label}: service logged errors, first: ${errorLogLines[0]}`);
    return { ...figures, errorLogLines: errorLogLines.length };
  } finally {
    await service.stop();
  }
}

const upstream = await startHelper('_fake-upstream-process.ts');
try {
  const libsql = await measure('libsql file', upstream.url, '');
  const database = await createTestDatabase('postgres', process.env);
  let postgres: Awaited<ReturnType<typeof measure>>;
  try {
    postgres = await measure('PostgreSQL', upstream.url, database.databaseUrl);
  } finally {
    await database.drop();
  }
  console.log(
    JSON.stringify({
      bench: 'chat-postgres',
      code: codeVersion(),
      connections: CONNECTIONS,
      durationS: DURATION_S,
      sessions: SESSIONS,
      libsqlRps: libsql.rps,
      libsqlP50Ms: libsql.p50Ms,
      libsqlP99Ms: libsql.p99Ms,
      postgresRps: postgres.rps,
      postgresP50Ms: postgres.p50Ms,
      postgresP99Ms: postgres.p99Ms,
      postgresVsLibsql: round(postgres.rps / Math.max(1, libsql.rps), 2),
      errors: libsql.errors + postgres.errors,
      non2xx: libsql.non2xx + postgres.non2xx,
      serviceErrorLogLines: libsql.errorLogLines + postgres.errorLogLines,
      // CPU other programs took meanwhile (% of one core, worst run): above ~20 the figures are skewed.
      otherCpuPct: Math.max(libsql.otherCpuPct, postgres.otherCpuPct),
    }),
  );
} finally {
  await upstream.stop();
}
