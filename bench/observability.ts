// What observability costs. Two services on the same fake upstream, side by side in one run:
// tracing off and nobody scraping, and tracing on (OTLP/HTTP to a local collector) with /metrics
// scraped every second; chat throughput of both, interleaved (off, on, off, on) so drift hits both.
// Metric counting itself is always on (it has no switch): its cost is in both figures, and measured
// alone as the time the per-turn observer work takes. Last, turn latency p99 under load with 100
// WebSocket subscribers watching the busy agent, against none.
// Prints one JSON line: {"bench":"observability", ...}.
import { createServer } from 'node:http';
import { Telemetry } from '../src/observability/telemetry.ts';
import {
  BENCH_AGENT,
  codeVersion,
  postJson,
  progress,
  round,
  startHelper,
  startService,
  warmAndLoad,
} from './_shared.ts';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 20);
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 3);
const WARM_S = 1;
const SUBSCRIBERS = 100;
const MESSAGES = [{ role: 'user', content: 'hi' }];

/** A collector that accepts every export, counting the spans' bytes. */
async function startCollector(): Promise<{ url: string; bytes: () => number; close: () => void }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    bytes: () => bytes,
    close: () => server.close(),
  };
}

/**
 * Microseconds of observer work per turn, measured alone in this process: a turn with its chain run
 * (two nodes), one model call (three streamed events), twenty text deltas, usage and a tool call,
 * nobody subscribed; with tracing off, and on (spans exported to the local collector).
 */
async function observerMicrosPerTurn(otlpEndpoint: string): Promise<number> {
  const telemetry = await Telemetry.create({ otlpEndpoint, captureContent: false });
  const provider = telemetry.provider({
    id: 'fake',
    demo: false,
    async *stream() {
      yield { type: 'text-delta', text: 'word ' };
      yield { type: 'usage', usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 } };
      yield { type: 'finish', reason: 'stop' };
    },
  });
  const signal = new AbortController().signal;
  const turn = async () => {
    const watch = telemetry.turnStarted({ agentId: 'bench', channel: 'api', metadata: {}, input: 'hi' });
    await telemetry.runInTurn(watch, async () => {
      const run = telemetry.runObserver.chainStart(
        'bench',
        { turn: { agentId: 'bench' }, depth: 0 },
        undefined,
      );
      const endAgent = run.node('agent', 'ai/agent');
      for await (const _event of provider.stream({ model: '', messages: [], signal }));
      for (let index = 0; index < 20; index++) watch.event({ type: 'text-delta', text: 'word ' });
      watch.event({ type: 'usage', usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 } });
      const call = { toolCallId: 'c1', toolCallName: 'read', toolType: 'builtin' };
      watch.event({ type: 'tool-call-start', ...call, arguments: '{}' });
      watch.event({ type: 'tool-call-result', ...call, content: 'ok' });
      endAgent(['Success'], undefined);
      run.node('reply', 'end')(['Success'], undefined);
      run.end({ outcome: 'success', results: [] });
    });
    telemetry.turnEnded(watch, 'answer');
  };
  for (let index = 0; index < 2000; index++) await turn();
  const rounds = 10_000;
  const started = performance.now();
  for (let index = 0; index < rounds; index++) await turn();
  const micros = ((performance.now() - started) * 1000) / rounds;
  await telemetry.close();
  return round(micros, 1);
}

const upstream = await startHelper('_fake-upstream-process.ts');
const collector = await startCollector();
const models = {
  default_provider: 'fake',
  providers: { fake: { base_url: upstream.url, model: 'fake-model' } },
};
try {
  const off = await startService({ models });
  const on = await startService({ models, observability: { otlp_endpoint: collector.url } });
  try {
    for (const service of [off, on]) await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    const body = { model: 'bench', messages: MESSAGES };
    const load = { connections: CONNECTIONS, warmS: WARM_S, durationS: DURATION_S };
    const scraper = setInterval(() => void fetch(`${on.url}/metrics`).then((r) => r.text()), 1000);
    const totals = { off: 0, on: 0, errors: 0 };
    try {
      for (const round of [1, 2]) {
        for (const [name, service] of [
          ['off', off],
          ['on', on],
        ] as const) {
          progress(
            `observability: round ${round}, tracing ${name}, ${CONNECTIONS} connections, ${DURATION_S} s`,
          );
          const result = await warmAndLoad(`${service.url}/api/v1/chat/completions`, body, load);
          totals[name] += result.rps;
          totals.errors += result.errors + result.timeouts + result.non2xx;
        }
      }
    } finally {
      clearInterval(scraper);
    }

    progress(`observability: turn latency without subscribers`);
    const url = `${off.url}/api/v1/chat/completions`;
    const quiet = await warmAndLoad(url, body, load);
    progress(`observability: turn latency with ${SUBSCRIBERS} WebSocket subscribers on agent bench`);
    const subscribers = await startHelper('_ws-subscribers.ts', [
      `${off.url.replace('http://', 'ws://')}/api/v1/agents/bench/ws`,
      String(SUBSCRIBERS),
    ]);
    const watched = await warmAndLoad(url, body, load);
    await subscribers.stop();
    const received = Number(/received (\d+)/.exec(subscribers.stderr())?.[1] ?? 0);
    // Once more without them, so load drift during the run shows up in the baseline too.
    const quietAgain = await warmAndLoad(url, body, load);
    const observerOff = await observerMicrosPerTurn('');
    const observerTracing = await observerMicrosPerTurn(collector.url);

    const offRps = round(totals.off / 2);
    const onRps = round(totals.on / 2);
    console.log(
      JSON.stringify({
        bench: 'observability',
        code: codeVersion(),
        connections: CONNECTIONS,
        durationS: DURATION_S,
        // Chat turns per second, the mean of two interleaved runs each.
        tracingOffRps: offRps,
        tracingAndScrapeOnRps: onRps,
        onVsOff: round(onRps / offRps, 3),
        exportedSpanKb: round(collector.bytes() / 1024),
        // The observer's own work per turn, measured alone: metrics and monitor state; and with spans.
        observerMicrosPerTurn: observerOff,
        observerMicrosPerTurnTracing: observerTracing,
        // What that is of one turn at the measured throughput on one core (1e6 / rps µs per turn).
        observerShareOfTurn: round(observerTracing / (1e6 / offRps), 3),
        p99MsNoSubscribers: round((quiet.p99Ms + quietAgain.p99Ms) / 2),
        p99MsWith100Subscribers: watched.p99Ms,
        rpsNoSubscribers: round((quiet.rps + quietAgain.rps) / 2),
        rpsWith100Subscribers: watched.rps,
        eventsDelivered: received,
        errors:
          totals.errors + quiet.errors + watched.errors + quietAgain.errors + quiet.non2xx + watched.non2xx,
      }),
    );
  } finally {
    await off.stop();
    await on.stop();
  }
} finally {
  collector.close();
  await upstream.stop();
}
