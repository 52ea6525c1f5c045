// Memory and handles under a steady load for a long time (`npm run soak`; opt-in, not part of
// `npm run bench` unless named). `agent-service serve` on the fake upstream gets chat turns
// (plain and streamed, about one in four with a session of a small rotating set) at a fixed rate,
// with one WebSocket subscriber watching the agent; /metrics is read every SOAK_SAMPLE_S seconds.
// The first tenth of the run (at least 30 s) is warm-up: V8 and the caches settle there.
// Prints one JSON line: {"bench":"soak", rssGrowthPct, handles and timers at start and end, lag p99}.
//
//   SOAK_MINUTES   length of the run (default 60)
//   SOAK_RATE      requests per second (default 100)
//   SOAK_SAMPLE_S  seconds between samples (default 10)
import WebSocket from 'ws';
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

const MINUTES = Number(process.env['SOAK_MINUTES'] ?? 60);
const RATE = Number(process.env['SOAK_RATE'] ?? 100);
const SAMPLE_S = Number(process.env['SOAK_SAMPLE_S'] ?? 10);
const SESSIONS = 20;

interface Sample {
  atS: number;
  rssMb: number;
  heapMb: number;
  handles: number;
  timers: number;
  lagP99Ms: number;
}

/** One family's value from the text exposition (the first sample line, or the one with `label`). */
function metric(text: string, name: string, label?: string): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (label === undefined ? !/^[ {]/.test(rest) : !rest.includes(label)) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return Number.NaN;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const upstream = await startHelper('_fake-upstream-process.ts');
const service = await startService({
  models: { default_provider: 'fake', providers: { fake: { base_url: upstream.url, model: 'fake-model' } } },
});
let subscriber: WebSocket | undefined;
let events = 0;
try {
  await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
  subscriber = new WebSocket(`${service.url.replace('http', 'ws')}/api/v1/ws?agentId=bench`);
  await new Promise((resolve, reject) => {
    subscriber?.once('open', resolve);
    subscriber?.once('error', reject);
  });
  subscriber.on('message', () => (events += 1));

  const samples: Sample[] = [];
  const started = performance.now();
  const sample = async (): Promise<void> => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    samples.push({
      atS: round((performance.now() - started) / 1000),
      rssMb: round(metric(text, 'agent_service_process_resident_memory_bytes') / 1048576, 1),
      heapMb: round(metric(text, 'agent_service_nodejs_heap_size_used_bytes') / 1048576, 1),
      handles: metric(text, 'agent_service_nodejs_active_handles_total'),
      timers: metric(text, 'agent_service_nodejs_active_resources', 'type="Timeout"') || 0,
      // prom-client restarts the lag histogram at every scrape: this is the lag of the last window.
      lagP99Ms: round(metric(text, 'agent_service_nodejs_eventloop_lag_p99_seconds') * 1000, 1),
    });
  };
  await sample();
  const sampler = setInterval(() => void sample().catch(() => undefined), SAMPLE_S * 1000);

  const chat = (stream: boolean, sessionId?: string): string =>
    JSON.stringify({
      model: 'bench',
      stream,
      messages: [{ role: 'user', content: 'hi' }],
      ...(sessionId ? { sessionId } : {}),
    });
  let turn = 0;
  progress(`soak: ${MINUTES} min at ${RATE} req/s against ${service.url}`);
  const other = watchOtherCpu();
  const result = await autocannon({
    url: `${service.url}/api/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: 10,
    overallRate: RATE,
    duration: MINUTES * 60,
    timeout: 10,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => {
          turn += 1;
          // A session lasts 20 turns, then a new one starts: the database grows, as it does in use.
          const body =
            turn % 4 === 0
              ? chat(false, `soak-${turn % SESSIONS}-${Math.floor(turn / (SESSIONS * 20))}`)
              : chat(turn % 2 === 0);
          return { ...request, body };
        },
      },
    ],
  });
  clearInterval(sampler);
  await sample();
  const otherCpuPct = other.stop();

  const warmS = Math.max(30, (MINUTES * 60) / 10);
  const steady = samples.filter((s) => s.atS >= warmS);
  const first = steady.slice(0, 3);
  const last = steady.slice(-3);
  const rssStart = median(first.map((s) => s.rssMb));
  const rssEnd = median(last.map((s) => s.rssMb));
  const lags = steady.map((s) => s.lagP99Ms).filter((v) => Number.isFinite(v));
  console.log(
    JSON.stringify({
      bench: 'soak',
      code: codeVersion(),
      minutes: MINUTES,
      ratePerS: RATE,
      requests: result.requests.total,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      wsEvents: events,
      warmUpS: warmS,
      rssStartMb: rssStart,
      rssEndMb: rssEnd,
      rssGrowthPct: round((100 * (rssEnd - rssStart)) / rssStart, 1),
      heapStartMb: median(first.map((s) => s.heapMb)),
      heapEndMb: median(last.map((s) => s.heapMb)),
      handlesStart: median(first.map((s) => s.handles)),
      handlesEnd: median(last.map((s) => s.handles)),
      timersStart: median(first.map((s) => s.timers)),
      timersEnd: median(last.map((s) => s.timers)),
      // Per sampling window: the median window's p99, and the worst window's.
      eventLoopLagP99Ms: median(lags),
      eventLoopLagP99MaxMs: Math.max(...lags),
      samples: samples.length,
      otherCpuPct,
    }),
  );
  if (process.env['SOAK_SAMPLES']) for (const s of samples) progress(JSON.stringify(s));
} finally {
  subscriber?.close();
  await service.stop();
  await upstream.stop();
}
