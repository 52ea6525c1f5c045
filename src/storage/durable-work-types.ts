// The types of the durable work table and its API (durable-work.ts).
import type { Kysely } from 'kysely';

export interface DurableWorkTable {
  id: string;
  kind: string;
  payload: string;
  status: string;
  owner: string;
  lease_until: number;
  attempts: number;
  created_at: number;
  updated_at: number;
}

export type WorkDb = Kysely<{ durable_work: DurableWorkTable }>;

export type WorkStatus = 'running' | 'done' | 'failed';

/**
 * What a handler made of a claimed row: finished (done or failed), handed back for later (stopping),
 * not started for want of capacity (handed back without counting an attempt), or taken over by
 * another instance while it ran (this one stalled past its lease; nothing to mark).
 */
export type WorkOutcome = 'done' | 'failed' | 'released' | 'busy' | 'taken';

export interface ClaimedWork {
  id: string;
  kind: string;
  payload: unknown;
  /** 1 when first recorded; one more each time it is claimed again. */
  attempts: number;
}

export interface DurableWorkOptions {
  /** How long a claim lasts without renewal (default 3 s). */
  leaseMs?: number;
  /**
   * The claim a confirmed row gets as its reply goes out (default 5 s; the ticks renew it after):
   * a row whose owner died before the send is taken over after it, and since the confirmation
   * recorded the answer, the taker sends that answer (with the same idempotency key) instead of
   * running the turn again. It was 10 s and not renewed, which put the answer of a conversation cut
   * mid-send past the 10 s goal of issue 26.
   */
  sendLeaseMs?: number;
  /** How often this instance renews its claims and looks for lost work (default 0.75 s). */
  tickMs?: number;
  /** Claims of one row before it is given up as failed (a message that kills every instance; default 3). */
  maxAttempts?: number;
  /** How long finished rows are kept, which is how long a redelivery is recognised (default 24 h). */
  keepMs?: number;
  /** Single mode: no other instance exists, so unfinished rows are claimed at once at start. */
  single?: boolean;
  /**
   * Clustered on PostgreSQL: the database URL, where claims are then renewed, confirmed and marked
   * over four connections of their own. Behind the turns' queries in a busy shared pool, renewals came too late
   * and another instance took over work still running (cron at 200 fires/s ran hundreds of turns twice).
   */
  leaseUrl?: string;
  logger?: { info(object: object, message: string): void; warn(object: object, message: string): void };
  now?: () => number;
}
