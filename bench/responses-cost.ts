// What the Responses API adds to the same agent turn: one client sends, round-robin over one
// kept-alive connection each, a chat completion (POST /api/v1/chat/completions) and the same turn
// as a response (POST /v1/responses: stored, as by default, and with store: false), answered whole
// and streamed, to `agent-service serve` on the fake upstream. Interleaving puts every variant
// under the same conditions; the figures are medians of each, side by side in one run.
// Prints one JSON line: {"bench":"responses-cost", ...}.
import { Agent, request } from 'node:http';
import {
  BENCH_AGENT,
  codeVersion,
  postJson,
  progress,
  round,
  startHelper,
  startService,
  watchOtherCpu,
} from './_shared.ts';

const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
const WARM_S = 1;

interface Variant {
  name: string;
  url: URL;
  payload: string;
  agent: Agent;
  latencies: number[];
  failures: number;
}

function postOnce(variant: Variant): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      variant.url,
      {
        agent: variant.agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(variant.payload) },
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', reject);
      },
    );
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer within 10 s')));
    outgoing.once('error', reject);
    outgoing.end(variant.payload);
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)] ?? 0, 3);
};

const upstream = await startHelper('_fake-upstream-process.ts');
try {
  const service = await startService({
    models: {
      default_provider: 'fake',
      providers: { fake: { base_url: upstream.url, model: 'fake-model' } },
    },
  });
  try {
    await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    const chat = { model: 'bench', messages: [{ role: 'user', content: 'hi' }] };
    const response = { model: 'bench', input: 'hi' };
    const check = (await postJson(`${service.url}/v1/responses`, response)) as { status?: string };
    if (check.status !== 'completed') throw new Error(`unexpected response: ${JSON.stringify(check)}`);
    const variant = (name: string, path: string, body: unknown): Variant => ({
      name,
      url: new URL(`${service.url}${path}`),
      payload: JSON.stringify(body),
      agent: new Agent({ keepAlive: true, maxSockets: 1 }),
      latencies: [],
      failures: 0,
    });
    const variants = [
      variant('chat', '/api/v1/chat/completions', chat),
      variant('responses', '/v1/responses', response),
      variant('responsesUnstored', '/v1/responses', { ...response, store: false }),
      variant('chatStream', '/api/v1/chat/completions', { ...chat, stream: true }),
      variant('responsesStream', '/v1/responses', { ...response, stream: true }),
    ];
    progress(`responses-cost: ${variants.length} variants round-robin, one client, ${DURATION_S} s`);
    const warmUntil = performance.now() + WARM_S * 1000;
    while (performance.now() < warmUntil) for (const each of variants) await postOnce(each).catch(() => 0);
    const other = watchOtherCpu();
    const deadline = performance.now() + DURATION_S * 1000;
    while (performance.now() < deadline) {
      for (const each of variants) {
        const started = performance.now();
        const status = await postOnce(each).catch(() => 0);
        each.latencies.push(performance.now() - started);
        if (status < 200 || status >= 300) each.failures += 1;
      }
    }
    const otherCpuPct = other.stop();
    for (const each of variants) each.agent.destroy();
    const p50 = Object.fromEntries(variants.map((each) => [each.name, median(each.latencies)]));
    const at = (name: string): number => p50[name] ?? 0;
    const errorLogLines = service.errorLogLines();
    if (errorLogLines.length > 0) progress(`service logged errors, first: ${errorLogLines[0]}`);
    console.log(
      JSON.stringify({
        bench: 'responses-cost',
        code: codeVersion(),
        durationS: DURATION_S,
        turnsEach: variants[0]?.latencies.length ?? 0,
        chatP50Ms: at('chat'),
        responsesP50Ms: at('responses'),
        responsesUnstoredP50Ms: at('responsesUnstored'),
        chatStreamP50Ms: at('chatStream'),
        responsesStreamP50Ms: at('responsesStream'),
        // Medians of the Responses turn minus the chat completion of the same turn.
        addedP50Ms: round(at('responses') - at('chat'), 3),
        addedUnstoredP50Ms: round(at('responsesUnstored') - at('chat'), 3),
        addedStreamP50Ms: round(at('responsesStream') - at('chatStream'), 3),
        failures: variants.reduce((sum, each) => sum + each.failures, 0),
        serviceErrorLogLines: errorLogLines.length,
        otherCpuPct,
        goals: { addedP50Ms: 2 },
      }),
    );
  } finally {
    await service.stop();
  }
} finally {
  await upstream.stop();
}
