// The cost of metering on the hot path: model calls through a bare provider, through the usage meter
// with no budget, and through the meter with two budgets that apply (in-process counters), with the
// usage rows written in batches to a libsql file. Prints one JSON line; runs in a few seconds.
//   node --import tsx bench/usage-meter.ts [calls]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema, type Config } from '../src/config/schema.ts';
import type { ModelEvent, ModelProvider } from '../src/model-providers/types.ts';
import { openDatabase } from '../src/storage/database.ts';
import { createUsage } from '../src/usage/usage.ts';

const CALLS = Number(process.argv[2] ?? 50_000);

const bare: ModelProvider = {
  id: 'bench',
  demo: false,
  async *stream(): AsyncGenerator<ModelEvent> {
    yield { type: 'text-delta', text: 'Hello there.' };
    yield { type: 'usage', usage: { promptTokens: 100, completionTokens: 5, totalTokens: 105 } };
    yield { type: 'finish', reason: 'stop' };
  },
};

async function time(provider: ModelProvider): Promise<number> {
  const signal = new AbortController().signal;
  const caller = { attribution: { agentId: 'main', channel: 'api', accountId: 'partner', userId: '' } };
  const request = { model: '', messages: [{ role: 'user' as const, content: 'hi' }], signal, caller };
  const started = process.hrtime.bigint();
  for (let call = 0; call < CALLS; call += 1) for await (const _event of provider.stream(request));
  return Number(process.hrtime.bigint() - started) / 1000 / CALLS;
}

const dir = await mkdtemp(join(tmpdir(), 'bench-usage-'));
try {
  const db = await openDatabase(join(dir, 'bench.db'));
  let config: Config = configSchema.parse({});
  const usage = createUsage({ config: () => config, cluster: { mode: 'single', prefix: 'bench:' } });
  usage.attach(db);
  const entry = { base_url: 'http://127.0.0.1:9/v1', model: 'm', pricing: { input: 1, output: 2 } };
  const metered = usage.meter.wrap(bare, entry);
  await time(bare);
  const bareUs = await time(bare);
  const meteredUs = await time(metered);
  // Rows are written in the background: let them land before the next figure.
  await usage.store.flush();
  config = configSchema.parse({
    budgets: [
      { id: 'server', cost: 1e9 },
      { id: 'agent', scope: { agent: 'main' }, tokens: 1e15 },
    ],
  });
  const budgetedUs = await time(metered);
  const flushStarted = process.hrtime.bigint();
  await usage.close();
  const flushMs = Number(process.hrtime.bigint() - flushStarted) / 1e6;
  await db.destroy();
  console.log(
    JSON.stringify({
      bench: 'usage-meter',
      calls: CALLS,
      bareUsPerCall: Number(bareUs.toFixed(2)),
      meteredUsPerCall: Number(meteredUs.toFixed(2)),
      meteredWithTwoBudgetsUsPerCall: Number(budgetedUs.toFixed(2)),
      rowsStillQueuedFlushMs: Math.round(flushMs),
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
