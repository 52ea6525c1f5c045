// What observability costs, measured side by side in one run on a machine shared with other work.
//
// 1. Chat throughput and server CPU per turn of services on the same fake upstream: "off" (the
//    default config: metrics counted, nobody scraping, no OTLP endpoint) and "on" (spans exported
//    over OTLP/HTTP to a local collector, /metrics scraped every BENCH_SCRAPE_MS while it is loaded),
//    and this checkout's "sampled" (as "on", with BENCH_SAMPLE_RATIO of the traces recorded).
//    Rounds alternate the services and the figure is the median of the rounds, so drift and other
//    programs' bursts hit both. CPU per turn is read from /proc for the service alone: it moves far
//    less than throughput when something else runs on the machine.
// 2. Turn latency with 100 WebSocket subscribers watching the busy agent against none, on the
//    default service: saturated (BENCH_CONNECTIONS clients back to back) and paced (a fixed rate of
//    half the saturated throughput, where p99 is the turn's own latency rather than the queue's).
// 3. The observer's own work per turn, measured alone in this process (this checkout's code).
//
// BENCH_BASELINE_ENTRY=/path/to/other/bin/agent-service.mjs runs every service of 1 and 2 a second
// time from that checkout too, in the same rounds, and prints its figures under `before*` keys.
// Prints one JSON line: {"bench":"observability", ...}.
import { Telemetry } from '../src/observability/telemetry.ts';
import { observerMicrosPerTurn as observerOf, startCollector, type Collector } from './_observer-turns.ts';
import {
  autocannon,
  BENCH_AGENT,
  codeVersion,
  loadPost,
  postJson,
  processCpuMs,
  progress,
  round,
  startHelper,
  startService,
  watchOtherCpu,
  type Service,
} from './_shared.ts';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 20);
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 5);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const SCRAPE_MS = Number(process.env['BENCH_SCRAPE_MS'] ?? 1000);
/** The sampling ratio of the third, "sampled" service of this checkout (traced as "on" otherwise). */
const SAMPLE_RATIO = Number(process.env['BENCH_SAMPLE_RATIO'] ?? 0.1);
const BASELINE = process.env['BENCH_BASELINE_ENTRY'];
const WARM_S = 2;
const SUBSCRIBERS = 100;
const BODY = { model: 'bench', messages: [{ role: 'user', content: 'hi' }] };

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

interface Measured {
  rps: number;
  p99Ms: number;
  cpuMsPerTurn: number;
  requests: number;
  failed: number;
}

/** One measured load on a service: throughput, p99, and the service's CPU per completed turn. */
async function measure(service: Service, rate?: number): Promise<Measured> {
  const url = `${service.url}/api/v1/chat/completions`;
  const other = watchOtherCpu();
  const cpuBefore = processCpuMs(service.pid);
  const result = rate
    ? await autocannon({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(BODY),
        connections: CONNECTIONS,
        overallRate: rate,
        duration: DURATION_S,
        timeout: 10,
      }).then((raw) => ({
        rps: round(raw.requests.total / (raw.duration || DURATION_S)),
        p99Ms: raw.latency.p99,
        requests: raw.requests.total,
        errors: raw.errors,
        timeouts: raw.timeouts,
        non2xx: raw.non2xx,
      }))
    : await loadPost(url, BODY, CONNECTIONS, DURATION_S);
  const cpuMs = processCpuMs(service.pid) - cpuBefore;
  const otherPct = other.stop();
  if (otherPct > 20) progress(`  other programs used ${otherPct}% of a core meanwhile`);
  return {
    rps: result.rps,
    p99Ms: result.p99Ms,
    cpuMsPerTurn: round(cpuMs / Math.max(1, result.requests), 3),
    requests: result.requests,
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

/** The observer's own work per turn, measured alone in this process (bench/_observer-turns.ts). */
const observerMicrosPerTurn = (otlpEndpoint: string, traceSampleRatio = 1) =>
  observerOf(Telemetry, otlpEndpoint, traceSampleRatio);

interface Code {
  name: 'after' | 'before';
  off: Service;
  on: Service;
  /** Traced with SAMPLE_RATIO of the traces recorded (this checkout only: the key is new). */
  sampled?: Service;
  collector: Collector;
  onTurns: number;
  throughput: { off: Measured[]; on: Measured[]; sampled: Measured[] };
  latency: { quiet: Measured[]; watched: Measured[]; pacedQuiet: Measured[]; pacedWatched: Measured[] };
  eventsDelivered: number;
  eventTypes: string;
}

const upstream = await startHelper('_fake-upstream-process.ts');
const models = {
  default_provider: 'fake',
  providers: { fake: { base_url: upstream.url, model: 'fake-model' } },
};
const codes: Code[] = [];
try {
  for (const [name, entry] of [
    ['after', undefined],
    ...(BASELINE ? [['before', BASELINE] as const] : []),
  ] as const) {
    const collector = await startCollector();
    const options = entry ? { entry } : {};
    const off = await startService({ models }, options);
    const on = await startService({ models, observability: { otlp_endpoint: collector.url } }, options);
    const sampled = entry
      ? undefined
      : await startService({
          models,
          observability: { otlp_endpoint: collector.url, trace_sample_ratio: SAMPLE_RATIO },
        });
    codes.push({
      name,
      off,
      on,
      ...(sampled ? { sampled } : {}),
      collector,
      onTurns: 0,
      throughput: { off: [], on: [], sampled: [] },
      latency: { quiet: [], watched: [], pacedQuiet: [], pacedWatched: [] },
      eventsDelivered: 0,
      eventTypes: '',
    });
  }
  for (const code of codes) {
    for (const service of [code.off, code.on, ...(code.sampled ? [code.sampled] : [])]) {
      await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
      const warm = await loadPost(`${service.url}/api/v1/chat/completions`, BODY, CONNECTIONS, WARM_S);
      if (service === code.on) code.onTurns += warm.requests;
    }
  }

  // 1. Throughput, off and on, the order turning each round.
  const slots = codes.flatMap((code) => [
    { code, kind: 'off' as const },
    { code, kind: 'on' as const },
    ...(code.sampled ? [{ code, kind: 'sampled' as const }] : []),
  ]);
  for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
    for (let index = 0; index < slots.length; index++) {
      const { code, kind } = slots[(index + roundIndex) % slots.length] as (typeof slots)[number];
      progress(`observability: round ${roundIndex + 1}/${ROUNDS}, ${code.name} ${kind}`);
      const service = code[kind] as Service;
      const scraper =
        kind !== 'off'
          ? setInterval(
              () =>
                void fetch(`${service.url}/metrics`)
                  .then((response) => response.text())
                  .catch(() => ''),
              SCRAPE_MS,
            )
          : undefined;
      try {
        const result = await measure(service);
        code.throughput[kind].push(result);
        if (kind === 'on') code.onTurns += result.requests;
      } finally {
        clearInterval(scraper);
      }
    }
  }

  // 2. Turn latency on the default service, without and with 100 subscribers, saturated and paced.
  for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
    for (const code of roundIndex % 2 === 0 ? codes : [...codes].reverse()) {
      const rate = Math.max(10, Math.round(median(code.throughput.off.map((entry) => entry.rps)) / 2));
      progress(`observability: round ${roundIndex + 1}/${ROUNDS}, ${code.name} latency, no subscribers`);
      code.latency.quiet.push(await measure(code.off));
      code.latency.pacedQuiet.push(await measure(code.off, rate));
      progress(
        `observability: round ${roundIndex + 1}/${ROUNDS}, ${code.name} latency, ${SUBSCRIBERS} subscribers`,
      );
      const subscribers = await startHelper('_ws-subscribers.ts', [
        `${code.off.url.replace('http://', 'ws://')}/api/v1/agents/bench/ws`,
        String(SUBSCRIBERS),
      ]);
      try {
        code.latency.watched.push(await measure(code.off));
        code.latency.pacedWatched.push(await measure(code.off, rate));
      } finally {
        await subscribers.stop();
      }
      code.eventsDelivered += Number(/received (\d+)/.exec(subscribers.stderr())?.[1] ?? 0);
      code.eventTypes = /types (\{.*\})/.exec(subscribers.stderr())?.[1] ?? '';
    }
  }

  // 3. The observer alone.
  progress('observability: the observer alone, tracing off and on');
  const observerCollector = await startCollector();
  const observerOff = await observerMicrosPerTurn('');
  const observerTracing = await observerMicrosPerTurn(observerCollector.url);
  const observerSampled = await observerMicrosPerTurn(observerCollector.url, SAMPLE_RATIO);
  observerCollector.close();

  const figures: Record<string, unknown> = {};
  let errors = 0;
  for (const code of codes) {
    const prefix = code.name === 'after' ? '' : 'before.';
    const med = (list: Measured[], key: keyof Measured) => round(median(list.map((entry) => entry[key])), 3);
    const { off, on, sampled } = code.throughput;
    const { quiet, watched, pacedQuiet, pacedWatched } = code.latency;
    for (const list of [off, on, sampled, quiet, watched, pacedQuiet, pacedWatched])
      for (const entry of list) errors += entry.failed;
    const watchedTurns = [...watched, ...pacedWatched].reduce((sum, entry) => sum + entry.requests, 0);
    Object.assign(figures, {
      [`${prefix}offRps`]: med(off, 'rps'),
      [`${prefix}onRps`]: med(on, 'rps'),
      [`${prefix}onVsOff`]: round(med(on, 'rps') / med(off, 'rps'), 3),
      [`${prefix}offCpuMsPerTurn`]: med(off, 'cpuMsPerTurn'),
      [`${prefix}onCpuMsPerTurn`]: med(on, 'cpuMsPerTurn'),
      [`${prefix}cpuOnVsOff`]: round(med(on, 'cpuMsPerTurn') / med(off, 'cpuMsPerTurn'), 3),
      [`${prefix}onVsOffRounds`]: on.map((entry, index) => round(entry.rps / (off[index]?.rps ?? 1), 3)),
      ...(sampled.length > 0
        ? {
            sampleRatio: SAMPLE_RATIO,
            sampledRps: med(sampled, 'rps'),
            sampledVsOff: round(med(sampled, 'rps') / med(off, 'rps'), 3),
            sampledCpuMsPerTurn: med(sampled, 'cpuMsPerTurn'),
            cpuSampledVsOff: round(med(sampled, 'cpuMsPerTurn') / med(off, 'cpuMsPerTurn'), 3),
          }
        : {}),
      [`${prefix}spanBytesPerTurn`]: round(code.collector.bytes() / Math.max(1, code.onTurns)),
      [`${prefix}p99MsNoSubscribers`]: med(quiet, 'p99Ms'),
      [`${prefix}p99MsWith100Subscribers`]: med(watched, 'p99Ms'),
      [`${prefix}p99Ratio`]: round(med(watched, 'p99Ms') / med(quiet, 'p99Ms'), 3),
      [`${prefix}rpsNoSubscribers`]: med(quiet, 'rps'),
      [`${prefix}rpsWith100Subscribers`]: med(watched, 'rps'),
      [`${prefix}cpuMsPerTurnNoSubscribers`]: med(quiet, 'cpuMsPerTurn'),
      [`${prefix}cpuMsPerTurnWith100Subscribers`]: med(watched, 'cpuMsPerTurn'),
      [`${prefix}pacedRps`]: med(pacedQuiet, 'rps'),
      [`${prefix}pacedP99MsNoSubscribers`]: med(pacedQuiet, 'p99Ms'),
      [`${prefix}pacedP99MsWith100Subscribers`]: med(pacedWatched, 'p99Ms'),
      [`${prefix}pacedP99Ratio`]: round(med(pacedWatched, 'p99Ms') / med(pacedQuiet, 'p99Ms'), 3),
      // Frames the subscribers read per watched turn, all 100 together.
      [`${prefix}eventsPerWatchedTurn`]: round(code.eventsDelivered / Math.max(1, watchedTurns), 1),
      [`${prefix}eventTypesOfOneSubscriber`]: code.eventTypes ? JSON.parse(code.eventTypes) : {},
    });
  }
  const offCpuMicros = (figures['offCpuMsPerTurn'] as number) * 1000;
  console.log(
    JSON.stringify({
      bench: 'observability',
      code: codeVersion(),
      baseline: BASELINE ?? null,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      rounds: ROUNDS,
      scrapeMs: SCRAPE_MS,
      ...figures,
      // The observer's own work per turn, measured alone: metrics and monitor state; and with spans.
      observerCpuMicrosPerTurn: observerOff.cpu,
      observerCpuMicrosPerTurnTracing: observerTracing.cpu,
      observerCpuMicrosPerTurnSampled: observerSampled.cpu,
      // What that is of the server's CPU per turn (tracing off).
      observerShareOfTurnCpu: round(observerOff.cpu / offCpuMicros, 3),
      observerShareOfTurnCpuTracing: round(observerTracing.cpu / offCpuMicros, 3),
      errors,
    }),
  );
} finally {
  for (const code of codes) {
    await code.off.stop();
    await code.on.stop();
    await code.sampled?.stop();
    code.collector.close();
  }
  await upstream.stop();
}
