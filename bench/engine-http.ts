// Throughput of POST /api/v1/rules/{id}/execute for a 3-node chain (jsFilter -> jsTransform -> end)
// on `agent-service serve`, at the default log level (info) and at warn, next to a bare fastify
// server loaded the same way. Prints one JSON line: {"bench":"engine-http", ...}.
import {
  codeVersion,
  postJson,
  progress,
  round,
  startHelper,
  startService,
  warmAndLoad,
  type LoadResult,
} from './_shared.ts';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 100);
const WARM_S = 2;
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
const BODY = { temperature: 25 };

const CHAIN = {
  ruleChain: { id: 'bench-hot', name: 'Bench: hot readings' },
  metadata: {
    nodes: [
      { id: 'filter', type: 'jsFilter', configuration: { jsScript: 'return msg.temperature > 20;' } },
      {
        id: 'transform',
        type: 'jsTransform',
        configuration: {
          jsScript: 'msg.hot = true; return {msg: msg, metadata: metadata, msgType: msgType};',
        },
      },
      { id: 'end', type: 'end' },
    ],
    connections: [
      { fromId: 'filter', type: 'True', toId: 'transform' },
      { fromId: 'transform', type: 'Success', toId: 'end' },
    ],
  },
};

type Measured = LoadResult & { otherCpuPct: number; cpuMsPerRequest?: number };

async function measureService(
  logLevel: 'info' | 'warn',
): Promise<Measured & { peakRssMb: number; errorLogLines: number }> {
  // log_level is the default (info) unless set, so the info run uses a config without it.
  const service = await startService({
    ...(logLevel === 'info' ? {} : { server: { log_level: logLevel } }),
    // BENCH_SCRIPT_WORKERS compares pool sizes; unset, the service's default applies.
    ...(process.env['BENCH_SCRIPT_WORKERS']
      ? { engine: { script_workers: Number(process.env['BENCH_SCRIPT_WORKERS']) } }
      : {}),
  });
  try {
    await postJson(`${service.url}/api/v1/rules`, CHAIN);
    const url = `${service.url}/api/v1/rules/${CHAIN.ruleChain.id}/execute`;
    const answer = await postJson(url, BODY);
    if ((answer as { hot?: unknown }).hot !== true)
      throw new Error(`unexpected execute answer: ${JSON.stringify(answer)}`);
    progress(
      `engine-http: service (log ${logLevel}) at ${service.url}, ${CONNECTIONS} connections, ${DURATION_S} s`,
    );
    const result = await warmAndLoad(url, BODY, {
      connections: CONNECTIONS,
      warmS: WARM_S,
      durationS: DURATION_S,
      pid: service.pid,
    });
    const errorLogLines = service.errorLogLines();
    if (errorLogLines.length > 0) progress(`service logged errors, first: ${errorLogLines[0]}`);
    return { ...result, peakRssMb: result.peakRssMb ?? 0, errorLogLines: errorLogLines.length };
  } finally {
    await service.stop();
  }
}

async function measureBare(): Promise<Measured> {
  const bare = await startHelper('_bare-fastify.ts');
  try {
    progress(`engine-http: bare fastify at ${bare.url}`);
    return await warmAndLoad(`${bare.url}/echo`, BODY, {
      connections: CONNECTIONS,
      warmS: WARM_S,
      durationS: DURATION_S,
      pid: bare.pid,
    });
  } finally {
    await bare.stop();
  }
}

const info = await measureService('info');
const warn = await measureService('warn');
const bare = await measureBare();

console.log(
  JSON.stringify({
    bench: 'engine-http',
    code: codeVersion(),
    connections: CONNECTIONS,
    durationS: DURATION_S,
    logLevel: 'info',
    executeRps: info.rps,
    executeP50Ms: info.p50Ms,
    executeP99Ms: info.p99Ms,
    errors: info.errors + info.timeouts,
    non2xx: info.non2xx,
    peakRssMb: info.peakRssMb,
    executeRpsWarnLog: warn.rps,
    executeP50MsWarnLog: warn.p50Ms,
    executeP99MsWarnLog: warn.p99Ms,
    errorsWarnLog: warn.errors + warn.timeouts,
    non2xxWarnLog: warn.non2xx,
    peakRssMbWarnLog: warn.peakRssMb,
    serviceErrorLogLines: info.errorLogLines + warn.errorLogLines,
    bareFastifyRps: bare.rps,
    bareFastifyP99Ms: bare.p99Ms,
    executeVsBare: round(info.rps / bare.rps, 2),
    executeVsBareWarnLog: round(warn.rps / bare.rps, 2),
    // CPU per request of each process (all its threads, the script worker included).
    executeCpuMsPerRequest: info.cpuMsPerRequest,
    bareFastifyCpuMsPerRequest: bare.cpuMsPerRequest,
    bareVsExecuteCpu: round((bare.cpuMsPerRequest ?? 0) / (info.cpuMsPerRequest ?? 1), 2),
    // CPU other programs took meanwhile (% of one core, worst phase): above ~20 the figures are skewed.
    otherCpuPct: Math.max(info.otherCpuPct, warn.otherCpuPct, bare.otherCpuPct),
    goals: { executeRps: 8500, executeP99Ms: 50, peakRssMb: 150 },
  }),
);
