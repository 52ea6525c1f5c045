// The usage_calls table (migration 201-usage): rows are queued and written in batches, one insert
// for all the calls that ended within BATCH_MS of the first of them, so a busy server writes far
// fewer statements than it makes calls and a call never waits for the database. An insert of one
// row cost 65-105 µs of CPU on libsql, 10 µs a row in a batch of 20 and 7 µs in one of 100; with
// one event-loop turn of batching, a chat turn under load paid for inserts of 1-5 rows.
import { sql, type Kysely } from 'kysely';
import type { BudgetScope } from '../config/schema.ts';
import { AppError } from '../core/errors.ts';
import type { Db } from '../storage/database.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { GroupBy } from './group-by.ts';

export interface UsageCallsTable {
  id?: number;
  at: number;
  day: string;
  agent_id: string;
  provider: string;
  model: string;
  channel: string;
  account_id: string;
  user_id: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_nanos: number;
  /** 1 when the tokens are our estimate (the provider reported none). */
  estimated: number;
  /** ok, failed (the call threw), aborted (the caller left) or retried (an attempt before a retry). */
  status: string;
  duration_ms: number;
}

export type UsageRow = Omit<UsageCallsTable, 'id'>;

type UsageDb = Kysely<{ usage_calls: UsageCallsTable }>;

const COLUMN: Record<GroupBy, keyof UsageCallsTable> = {
  agent: 'agent_id',
  provider: 'provider',
  model: 'model',
  channel: 'channel',
  account: 'account_id',
  user: 'user_id',
  day: 'day',
};

export interface UsageTotals {
  calls: number;
  failedCalls: number;
  estimatedCalls: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  costNanos: number;
}

export interface UsageGroup extends UsageTotals {
  key: string;
  /** For groups by account or user: the channel they belong to. */
  channel?: string;
}

/** Rows kept in memory at most while the database is away; older ones are dropped (and logged). */
const MAX_QUEUED = 50_000;
/**
 * How long the first queued row waits for others to share its insert. A crash loses the rows of at
 * most this window (a clean stop, and every read of the table, writes them first).
 */
const BATCH_MS = 100;
/**
 * Rows per insert at most; a queue this long is written at once. An insert takes a power of two of
 * rows (256, 128, ... 1), so the database prepares a handful of statement texts, kept prepared,
 * instead of a new one for every length of queue (preparing a 100-row insert costs more than
 * running it).
 */
const BATCH_ROWS = 256;
/** After a failed insert, the wait before the next attempt (rows added meanwhile wait with it). */
const RETRY_MS = 1000;

export class UsageStore {
  private database: UsageDb | undefined;
  private queue: UsageRow[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly logger: Logger = silentLogger) {}

  /** The database opens after the model registry (which meters from the start) is built. */
  attach(db: Db): void {
    this.database = db.withTables<{ usage_calls: UsageCallsTable }>() as unknown as UsageDb;
    this.schedule();
  }

  private get db(): UsageDb {
    if (!this.database) throw new AppError('unavailable', 'the usage database is not open yet');
    return this.database;
  }

  /** Queues a row; it is written with the next batch. */
  add(row: UsageRow): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.queue.shift();
      this.logger.warn({ queued: MAX_QUEUED }, 'usage rows dropped: the database is not taking them');
    }
    this.queue.push(row);
    this.schedule();
  }

  /** Resolves once every row queued so far is written (or given up on). */
  async flush(): Promise<void> {
    if (this.timer) this.writeNow();
    while (this.writing) await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  /**
   * The next insert: after BATCH_MS, or now when a batch is full. A retry after a failure holds the
   * same timer, so rows added while the database is away wait for it instead of each starting an
   * attempt of their own.
   */
  private schedule(delayMs = BATCH_MS): void {
    if (this.writing || this.timer || this.closed || !this.database || this.queue.length === 0) return;
    if (this.queue.length >= BATCH_ROWS && delayMs === BATCH_MS) this.writing = this.drain();
    else this.timer = setTimeout(this.writeNow, delayMs).unref();
  }

  private readonly writeNow = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.writing && !this.closed && this.database) this.writing = this.drain();
  };

  private async drain(): Promise<void> {
    let next = BATCH_MS;
    try {
      while (this.queue.length > 0) {
        const size = 2 ** Math.floor(Math.log2(Math.min(this.queue.length, BATCH_ROWS)));
        const batch = this.queue.splice(0, size);
        try {
          await this.db.insertInto('usage_calls').values(batch).execute();
        } catch (error) {
          // Kept for the next attempt, ahead of newer rows.
          this.queue.unshift(...batch);
          this.logger.warn(
            { err: error instanceof Error ? error.message : String(error), rows: batch.length },
            'could not record model usage; will retry',
          );
          next = RETRY_MS;
          return;
        }
      }
    } finally {
      this.writing = undefined;
      // Rows that came while the last insert ran wait for their own window (or for the retry).
      this.schedule(next);
    }
  }

  /** Totals over [from, to), and per group when `groupBy` is given (largest cost, then tokens first). */
  async query(
    from: number,
    to: number,
    groupBy: GroupBy | undefined,
  ): Promise<{ totals: UsageTotals; groups: UsageGroup[] }> {
    await this.flush();
    const base = this.db.selectFrom('usage_calls').where('at', '>=', from).where('at', '<', to);
    const [total] = await base.select(aggregates()).execute();
    const totals = totalsOf(total);
    if (!groupBy) return { totals, groups: [] };
    const column = COLUMN[groupBy];
    const withChannel = groupBy === 'account' || groupBy === 'user';
    const rows = await base
      .select(aggregates())
      .select(sql<string>`${sql.ref(column)}`.as('group_key'))
      .$if(withChannel, (query) => query.select('channel'))
      .groupBy(withChannel ? [column, 'channel'] : [column])
      .execute();
    const groups = rows.map((row) => {
      const record = row as Record<string, unknown>;
      return {
        key: String(record['group_key'] ?? ''),
        ...(withChannel ? { channel: String(record['channel'] ?? '') } : {}),
        ...totalsOf(record),
      };
    });
    groups.sort((left, right) =>
      groupBy === 'day'
        ? left.key.localeCompare(right.key)
        : right.costNanos - left.costNanos ||
          right.totalTokens - left.totalTokens ||
          left.key.localeCompare(right.key),
    );
    return { totals, groups };
  }

  /** Tokens and cost of the calls a budget's scope counts, since `from` (to seed a period's counter). */
  async spentSince(scope: BudgetScope, from: number): Promise<{ tokens: number; costNanos: number }> {
    await this.flush();
    let query = this.db.selectFrom('usage_calls').where('at', '>=', from);
    if ('agent' in scope) query = query.where('agent_id', '=', scope.agent);
    else if ('account' in scope)
      query = query.where('channel', '=', 'api').where('account_id', '=', scope.account);
    else if ('channel' in scope) {
      query = query.where('channel', '=', scope.channel);
      if (scope.accountId !== undefined) query = query.where('account_id', '=', scope.accountId);
    } else if ('user' in scope) query = query.where('user_id', '=', scope.user);
    const [row] = await query.select(aggregates()).execute();
    const totals = totalsOf(row);
    return { tokens: totals.totalTokens, costNanos: totals.costNanos };
  }
}

function aggregates() {
  return [
    sql<number>`count(*)`.as('calls'),
    sql<number>`sum(case when status = 'ok' then 0 else 1 end)`.as('failed_calls'),
    sql<number>`sum(estimated)`.as('estimated_calls'),
    sql<number>`sum(input_tokens)`.as('input_tokens'),
    sql<number>`sum(cached_input_tokens)`.as('cached_input_tokens'),
    sql<number>`sum(output_tokens)`.as('output_tokens'),
    sql<number>`sum(reasoning_tokens)`.as('reasoning_tokens'),
    sql<number>`sum(cost_nanos)`.as('cost_nanos'),
  ] as const;
}

// Postgres sums bigints as numeric, which its driver reads as text.
const count = (value: unknown): number => Number(value ?? 0) || 0;

function totalsOf(row: Record<string, unknown> | undefined): UsageTotals {
  const input = count(row?.['input_tokens']);
  const output = count(row?.['output_tokens']);
  return {
    calls: count(row?.['calls']),
    failedCalls: count(row?.['failed_calls']),
    estimatedCalls: count(row?.['estimated_calls']),
    inputTokens: input,
    cachedInputTokens: count(row?.['cached_input_tokens']),
    outputTokens: output,
    reasoningTokens: count(row?.['reasoning_tokens']),
    totalTokens: input + output,
    costNanos: count(row?.['cost_nanos']),
  };
}
