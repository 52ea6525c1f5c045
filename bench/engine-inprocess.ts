// In-process throughput of the rule engine: runs per second for a 3-node chain
// (jsFilter -> jsTransform -> end) and a 10-node chain, each for a bounded time. Prints one JSON line.
import { RuleEngine } from '../src/engine/engine.ts';
import { newMessage } from '../src/engine/message.ts';
import { createDefaultRegistry } from '../src/engine/registry.ts';

const SECONDS_PER_CHAIN = 2;
const WARM_UP_SECONDS = 0.5;
const CONCURRENCY = 32;

function definition(id: string, nodes: Array<[string, string, Record<string, unknown>]>, links: string[][]) {
  return {
    ruleChain: { id, name: id },
    metadata: {
      nodes: nodes.map(([nodeId, type, configuration]) => ({ id: nodeId, type, configuration })),
      connections: links.map(([fromId = '', type = '', toId = '']) => ({ fromId, type, toId })),
    },
  };
}

const small = definition(
  'small',
  [
    ['filter', 'jsFilter', { jsScript: 'return msg.temperature > 10;' }],
    [
      'transform',
      'jsTransform',
      { jsScript: 'msg.seen = true; metadata.step = "1"; return {msg, metadata, msgType};' },
    ],
    ['end', 'end', {}],
  ],
  [
    ['filter', 'True', 'transform'],
    ['transform', 'Success', 'end'],
  ],
);

const transforms = Array.from({ length: 6 }, (_, index) => [
  `t${index}`,
  'jsTransform',
  { jsScript: `msg.step${index} = ${index}; return {msg, metadata, msgType};` },
]) as Array<[string, string, Record<string, unknown>]>;
const large = definition(
  'large',
  [
    ['filter', 'jsFilter', { jsScript: 'return msg.temperature > 10;' }],
    ...transforms,
    [
      'switch',
      'switch',
      {
        cases: [
          { case: 'msg.temperature > 30', then: 'hot' },
          { case: 'true', then: 'mild' },
        ],
      },
    ],
    ['exprFilter', 'exprFilter', { expr: 'msg.step5 == 5' }],
    ['end', 'end', {}],
  ],
  [
    ['filter', 'True', 't0'],
    ...transforms.slice(1).map(([id], index) => [`t${index}`, 'Success', id]),
    ['t5', 'Success', 'switch'],
    ['switch', 'mild', 'exprFilter'],
    ['exprFilter', 'True', 'end'],
  ],
);

async function measure(engine: RuleEngine, chainId: string, seconds = SECONDS_PER_CHAIN): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let runs = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const result = await engine.execute(chainId, newMessage({ temperature: 21, name: 'sensor-1' }));
      if (result.outcome !== 'success' || result.results.length !== 1)
        throw new Error(`bad run: ${JSON.stringify(result)}`);
      runs += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return Math.round(runs / ((performance.now() - started) / 1000));
}

const engine = new RuleEngine({
  registry: createDefaultRegistry(),
  services: { scriptTimeoutMs: 2000, scriptMemoryBytes: 32 * 1024 * 1024 },
});
await engine.load(small);
await engine.load(large);
await measure(engine, 'small', WARM_UP_SECONDS); // warm-up, discarded
const smallRate = await measure(engine, 'small');
const largeRate = await measure(engine, 'large');
await engine.close();
console.log(
  JSON.stringify({
    bench: 'engine-inprocess',
    concurrency: CONCURRENCY,
    runsPerSecond3Nodes: smallRate,
    runsPerSecond10Nodes: largeRate,
    microsecondsPerRun3Nodes: Math.round(1e6 / smallRate),
    microsecondsPerRun10Nodes: Math.round(1e6 / largeRate),
  }),
);
