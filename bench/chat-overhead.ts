// What the service adds to a model call: POST /v1/chat/completions on the fake upstream directly,
// then POST /api/v1/chat/completions on `agent-service serve` for an agent (one ai/agent node, no
// tools) on that upstream, same load; then both again with one client for the added median latency.
// Last, the same agent on a service with no provider (the in-process demo model): the service's own
// cost of a turn, without the model call.
// Prints one JSON line: {"bench":"chat-overhead", ...}.
import {
  BENCH_AGENT,
  codeVersion,
  postJson,
  progress,
  round,
  singleClientLatency,
  startHelper,
  startService,
  warmAndLoad,
  watchOtherCpu,
} from './_shared.ts';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const WARM_S = 2;
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
const SINGLE_S = 5;
const MESSAGES = [{ role: 'user', content: 'hi' }];

const upstream = await startHelper('_fake-upstream-process.ts');
try {
  const service = await startService({
    ...(process.env['BENCH_MODEL_WORKERS']
      ? { engine: { model_workers: Number(process.env['BENCH_MODEL_WORKERS']) } }
      : {}),
    models: {
      default_provider: 'fake',
      providers: { fake: { base_url: upstream.url, model: 'fake-model' } },
    },
  });
  try {
    await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    const direct = {
      url: `${upstream.url}/chat/completions`,
      body: { model: 'fake-model', messages: MESSAGES },
    };
    const through = {
      url: `${service.url}/api/v1/chat/completions`,
      body: { model: 'bench', messages: MESSAGES },
    };
    const answer = (await postJson(through.url, through.body)) as {
      choices?: Array<{ message?: { content?: string } }>;
    };
    if (!answer.choices?.[0]?.message?.content)
      throw new Error(`unexpected chat answer: ${JSON.stringify(answer)}`);

    progress(`chat-overhead: direct to ${upstream.url}, ${CONNECTIONS} connections, ${DURATION_S} s`);
    const load = { connections: CONNECTIONS, warmS: WARM_S, durationS: DURATION_S };
    const directLoad = await warmAndLoad(direct.url, direct.body, load);
    progress(`chat-overhead: through the service at ${service.url}`);
    const serviceLoad = await warmAndLoad(through.url, through.body, { ...load, pid: service.pid });

    progress('chat-overhead: through a bare node:http proxy to the same upstream (the floor of any gateway)');
    const proxy = await startHelper('_bare-proxy.ts', [upstream.url]);
    let proxyLoad: Awaited<ReturnType<typeof warmAndLoad>>;
    try {
      proxyLoad = await warmAndLoad(`${proxy.url}/v1/chat/completions`, direct.body, {
        ...load,
        pid: proxy.pid,
      });
    } finally {
      await proxy.stop();
    }

    progress(`chat-overhead: one client, ${SINGLE_S} s each`);
    const watch = watchOtherCpu();
    const directSingle = await singleClientLatency(direct.url, direct.body, SINGLE_S);
    const serviceSingle = await singleClientLatency(through.url, through.body, SINGLE_S);
    const otherSingle = watch.stop();

    progress('chat-overhead: the same agent on the built-in demo model (no upstream call)');
    const demoService = await startService({});
    let demoLoad: Awaited<ReturnType<typeof warmAndLoad>>;
    try {
      await postJson(`${demoService.url}/api/v1/agents`, BENCH_AGENT);
      const demoUrl = `${demoService.url}/api/v1/chat/completions`;
      demoLoad = await warmAndLoad(demoUrl, through.body, { ...load, pid: demoService.pid });
    } finally {
      await demoService.stop();
    }

    const errorLogLines = service.errorLogLines();
    if (errorLogLines.length > 0) progress(`service logged errors, first: ${errorLogLines[0]}`);
    console.log(
      JSON.stringify({
        bench: 'chat-overhead',
        code: codeVersion(),
        connections: CONNECTIONS,
        durationS: DURATION_S,
        directRps: directLoad.rps,
        serviceRps: serviceLoad.rps,
        serviceVsDirect: round(serviceLoad.rps / directLoad.rps, 2),
        // A bare node:http proxy doing only parse, streamed upstream call, decode, answer.
        bareProxyRps: proxyLoad.rps,
        bareProxyVsDirect: round(proxyLoad.rps / directLoad.rps, 2),
        serviceVsBareProxy: round(serviceLoad.rps / proxyLoad.rps, 2),
        // CPU per request of each process (all its threads): steadier than throughput on a busy machine.
        serviceCpuMsPerTurn: serviceLoad.cpuMsPerRequest,
        bareProxyCpuMsPerRequest: proxyLoad.cpuMsPerRequest,
        bareProxyVsServiceCpu: round(
          (proxyLoad.cpuMsPerRequest ?? 0) / (serviceLoad.cpuMsPerRequest ?? 1),
          2,
        ),
        serviceDemoModelCpuMsPerTurn: demoLoad.cpuMsPerRequest,
        // Turns per second with the in-process demo model: everything but the upstream call.
        serviceDemoModelRps: demoLoad.rps,
        serviceDemoModelP99Ms: demoLoad.p99Ms,
        serviceP50Ms: serviceLoad.p50Ms,
        serviceP99Ms: serviceLoad.p99Ms,
        singleClientDirectP50Ms: directSingle.p50Ms,
        singleClientServiceP50Ms: serviceSingle.p50Ms,
        addedP50Ms: round(serviceSingle.p50Ms - directSingle.p50Ms, 2),
        singleClientDirectP99Ms: directSingle.p99Ms,
        singleClientServiceP99Ms: serviceSingle.p99Ms,
        // Socket errors and timeouts, then non-2xx answers (the single-client runs count both as failures).
        errors:
          directLoad.errors +
          directLoad.timeouts +
          serviceLoad.errors +
          serviceLoad.timeouts +
          demoLoad.errors +
          demoLoad.timeouts +
          proxyLoad.errors +
          proxyLoad.timeouts,
        non2xx: directLoad.non2xx + serviceLoad.non2xx + demoLoad.non2xx + proxyLoad.non2xx,
        singleClientFailures: directSingle.failures + serviceSingle.failures,
        serviceErrorLogLines: errorLogLines.length,
        peakRssMb: serviceLoad.peakRssMb,
        // CPU other programs took meanwhile (% of one core, worst phase): above ~20 the figures are skewed.
        otherCpuPct: Math.max(directLoad.otherCpuPct, serviceLoad.otherCpuPct, otherSingle),
        goals: { serviceRps: 3000, serviceVsDirect: 0.4, addedP50Ms: 2 },
      }),
    );
  } finally {
    await service.stop();
  }
} finally {
  await upstream.stop();
}
