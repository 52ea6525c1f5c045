// The usage subsystem as the composition root builds it: the store of call records, the budgets
// with their counters (in-process, or in Redis when clustered), the meter the model registry wraps
// every provider with, and the guard the chat endpoint and the channels ask before a turn.
import type { Cluster } from '../cluster/types.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { Config } from '../config/schema.ts';
import type { Db } from '../storage/database.ts';
import { LocalBudgetCounters, type BudgetCounters } from './budget-counters.ts';
import { Budgets, type NotifyTarget } from './budgets.ts';
import { UsageGuard } from './guard.ts';
import { UsageMeter } from './meter.ts';
import { RedisBudgetCounters } from './redis-budget-counters.ts';
import { LocalRequestLimiter, RedisRequestLimiter, type RequestLimiter } from './request-limiter.ts';
import { UsageStore } from './usage-store.ts';

export interface Usage {
  store: UsageStore;
  budgets: Budgets;
  meter: UsageMeter;
  guard: UsageGuard;
  /** Called once the database is open. */
  attach(db: Db): void;
  /** Writes the rows still queued. */
  close(): Promise<void>;
}

export interface UsageOptions {
  config: () => Config;
  cluster: Pick<Cluster, 'mode' | 'redis' | 'prefix'>;
  logger?: Logger;
  notify?: (target: NotifyTarget, text: string) => Promise<void>;
}

export function createUsage(options: UsageOptions): Usage {
  const { cluster } = options;
  const logger = options.logger ?? silentLogger;
  const redis = cluster.mode === 'clustered' ? cluster.redis : undefined;
  const counters: BudgetCounters = redis
    ? new RedisBudgetCounters(redis, cluster.prefix)
    : new LocalBudgetCounters();
  const limiter: RequestLimiter = redis
    ? new RedisRequestLimiter(redis, cluster.prefix)
    : new LocalRequestLimiter();
  const store = new UsageStore(logger);
  const budgets = new Budgets({
    budgets: () => options.config().budgets,
    counters,
    store,
    logger,
    ...(options.notify ? { notify: options.notify } : {}),
  });
  const meter = new UsageMeter({ sink: store, budgets, logger });
  return {
    store,
    budgets,
    meter,
    guard: new UsageGuard(options.config, budgets, limiter),
    attach: (db) => store.attach(db),
    close: () => store.close(),
  };
}
