// The observer's own work per turn, measured alone in one process: a turn with its chain run (two
// nodes), one model call (three streamed events), twenty text deltas, usage and a tool call, nobody
// subscribed. Shared by observability.ts and observer-cost.ts; `Telemetry` is passed in so that
// observer-cost.ts can drive another checkout's code in the same run.
import { createServer } from 'node:http';
import { UNATTRIBUTED } from '../src/model-providers/caller.ts';
import type { Telemetry as TelemetryClass } from '../src/observability/telemetry.ts';

export type TelemetryFactory = Pick<typeof TelemetryClass, 'create'>;

export interface Collector {
  url: string;
  bytes: () => number;
  close: () => void;
}

/** A collector that accepts every export, counting the bytes sent to it. */
export async function startCollector(): Promise<Collector> {
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

/** Microseconds (wall and CPU) of observer work per turn; tracing on when `otlpEndpoint` is set. */
export async function observerMicrosPerTurn(
  Telemetry: TelemetryFactory,
  otlpEndpoint: string,
  traceSampleRatio = 1,
  rounds = 100,
): Promise<{ wall: number; cpu: number }> {
  const telemetry = await Telemetry.create({ otlpEndpoint, captureContent: false, traceSampleRatio });
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
    const caller = { attribution: UNATTRIBUTED, turn: watch };
    {
      const run = telemetry.runObserver.chainStart(
        'bench',
        { turn: { agentId: 'bench', caller }, depth: 0 },
        undefined,
      );
      const endAgent = run.node('agent', 'ai/agent');
      for await (const _event of provider.stream({ model: '', messages: [], signal, caller }));
      for (let index = 0; index < 20; index++) watch.event({ type: 'text-delta', text: 'word ' });
      watch.event({ type: 'usage', usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 } });
      const call = { toolCallId: 'c1', toolCallName: 'read', toolType: 'builtin' };
      watch.event({ type: 'tool-call-start', ...call, arguments: '{}' });
      watch.event({ type: 'tool-call-result', ...call, content: 'ok' });
      endAgent(['Success'], undefined);
      run.node('reply', 'end')(['Success'], undefined);
      run.end({ outcome: 'success', results: [] });
    }
    telemetry.turnEnded(watch, 'answer');
  };
  // In batches with a pause between them, as turns arrive in a server: the span exporter gets to run.
  const batch = async (count: number) => {
    for (let index = 0; index < count; index++) await turn();
    await new Promise((resolve) => setImmediate(resolve));
  };
  for (let index = 0; index < 20; index++) await batch(100);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < rounds; index++) await batch(100);
  await telemetry.flush();
  const cpu = process.cpuUsage(cpuBefore);
  const wall = ((performance.now() - started) * 1000) / (rounds * 100);
  await telemetry.close();
  const round1 = (value: number) => Math.round(value * 10) / 10;
  return { wall: round1(wall), cpu: round1((cpu.user + cpu.system) / (rounds * 100)) };
}
