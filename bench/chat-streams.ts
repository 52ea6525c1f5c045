// 1,000 streamed chats started at once on `agent-service serve`, each through the agent `bench` to a
// fake upstream that waits 200 ms and then streams a few chunks, so all streams are open together.
// Counts streams that end with `data: [DONE]`, and samples the service's memory.
// Prints one JSON line: {"bench":"chat-streams", ...}.
import { setMaxListeners } from 'node:events';
import { Agent, request } from 'node:http';
import {
  BENCH_AGENT,
  codeVersion,
  postJson,
  progress,
  round,
  rssMb,
  sampleRss,
  startHelper,
  startService,
  watchOtherCpu,
} from './_shared.ts';

const STREAMS = Number(process.env['BENCH_STREAMS'] ?? 1000);
const UPSTREAM_LATENCY_MS = 200;
/** Streams still open after this are cut and counted as timeouts, so the benchmark always ends. */
const DEADLINE_MS = 60_000;

type Outcome = 'done' | 'status' | 'error-frame' | 'no-done' | 'socket-error' | 'timeout';

interface StreamResult {
  outcome: Outcome;
  ms: number;
  /** Time to the response headers (the service sends them before the turn starts). */
  headersMs?: number;
  detail?: string;
}

function streamChat(agent: Agent, url: URL, signal: AbortSignal): Promise<StreamResult> {
  const payload = JSON.stringify({
    model: 'bench',
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  return new Promise((resolve) => {
    const outgoing = request(
      url,
      {
        agent,
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        const headersMs = elapsed();
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.once('error', (error) =>
          resolve({
            outcome: signal.aborted ? 'timeout' : 'socket-error',
            ms: elapsed(),
            detail: error.message,
          }),
        );
        response.once('end', () => {
          if (response.statusCode !== 200)
            return resolve({
              outcome: 'status',
              ms: elapsed(),
              detail: `${response.statusCode} ${text.slice(0, 200)}`,
            });
          const errorFrame = /^data: \{"error".*$/m.exec(text);
          if (errorFrame) return resolve({ outcome: 'error-frame', ms: elapsed(), detail: errorFrame[0] });
          if (!text.trimEnd().endsWith('data: [DONE]'))
            return resolve({ outcome: 'no-done', ms: elapsed(), detail: text.slice(-200) });
          resolve({ outcome: 'done', ms: elapsed(), headersMs });
        });
      },
    );
    outgoing.once('error', (error) =>
      resolve({ outcome: signal.aborted ? 'timeout' : 'socket-error', ms: elapsed(), detail: error.message }),
    );
    outgoing.end(payload);
  });
}

const upstream = await startHelper('_fake-upstream-process.ts', [
  JSON.stringify({ latencyMs: UPSTREAM_LATENCY_MS }),
]);
try {
  const service = await startService({
    models: {
      default_provider: 'fake',
      providers: { fake: { base_url: upstream.url, model: 'fake-model' } },
    },
  });
  const agent = new Agent({ keepAlive: false, maxSockets: STREAMS });
  try {
    await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    const url = new URL(`${service.url}/api/v1/chat/completions`);
    const deadline = AbortSignal.timeout(DEADLINE_MS);
    setMaxListeners(STREAMS + 100, deadline);
    // A few streams first, so the figures are not those of the first-ever request.
    const warm = await Promise.all(Array.from({ length: 10 }, () => streamChat(agent, url, deadline)));
    if (warm.some((r) => r.outcome !== 'done'))
      throw new Error(`warm-up streams failed: ${JSON.stringify(warm)}`);
    const idleRssMb = await rssMb(service.pid);

    progress(
      `chat-streams: ${STREAMS} streams at once to ${service.url} (upstream latency ${UPSTREAM_LATENCY_MS} ms)`,
    );
    const rss = sampleRss(service.pid);
    const other = watchOtherCpu();
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: STREAMS }, () => streamChat(agent, url, deadline)),
    );
    const totalMs = performance.now() - started;
    const peakRssMb = rss.stop();
    const otherCpuPct = other.stop();

    const counts: Partial<Record<Outcome, number>> = {};
    for (const result of results) counts[result.outcome] = (counts[result.outcome] ?? 0) + 1;
    const failed = results.filter((r) => r.outcome !== 'done');
    if (failed.length > 0) progress(`first failure: ${JSON.stringify(failed[0])}`);
    const quantile = (values: number[], q: number) => {
      const sorted = [...values].sort((a, b) => a - b);
      return round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
    };
    const times = results.map((r) => r.ms);
    const headerTimes = results.flatMap((r) => (r.headersMs === undefined ? [] : [r.headersMs]));
    const errorLogLines = service.errorLogLines();
    if (errorLogLines.length > 0) progress(`service logged errors, first: ${errorLogLines[0]}`);
    console.log(
      JSON.stringify({
        bench: 'chat-streams',
        code: codeVersion(),
        streams: STREAMS,
        upstreamLatencyMs: UPSTREAM_LATENCY_MS,
        completed: counts.done ?? 0,
        errors: failed.length,
        errorKinds: Object.fromEntries(Object.entries(counts).filter(([kind]) => kind !== 'done')),
        totalMs: round(totalMs),
        headersP50Ms: quantile(headerTimes, 0.5),
        headersP99Ms: quantile(headerTimes, 0.99),
        streamP50Ms: quantile(times, 0.5),
        streamP99Ms: quantile(times, 0.99),
        idleRssMb,
        peakRssMb,
        serviceErrorLogLines: errorLogLines.length,
        // CPU other programs took meanwhile (% of one core): above ~20 the timings are skewed.
        otherCpuPct,
        goals: { completed: STREAMS, errors: 0, peakRssMb: 250 },
      }),
    );
  } finally {
    agent.destroy();
    await service.stop();
  }
} finally {
  await upstream.stop();
}
