// The coordination of instances, as the rest of the service sees it (types only): an event bus,
// locks and leases. cluster.ts makes the in-process one; redis-cluster.ts the one over Redis.
import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from '../core/logger.ts';
import type { EventBus } from './event-bus.ts';
import type { ConnectionLease } from './lease.ts';
import type { Locks } from './locks.ts';
import type { LeaseTimings } from './redis-lease.ts';

export type Reachability = 'ok' | 'unreachable' | 'not configured';

export interface Cluster {
  readonly mode: 'single' | 'clustered';
  /** This instance's id: cluster.instance_id, or <hostname>-<pid>. */
  readonly instanceId: string;
  /** Starts every Redis key and channel of this deployment (cluster.key_prefix). */
  readonly prefix: string;
  readonly bus: EventBus;
  readonly locks: Locks;
  readonly lease: ConnectionLease;
  /**
   * The command connection (clustered mode), for other users of Redis such as a job queue; and a
   * factory of connections of their own (BullMQ workers block), closed with the cluster.
   */
  readonly redis?: Redis;
  connect?(role: string, overrides?: RedisOptions): Redis;
  /** Whether Redis answers a PING within a second. */
  check(): Promise<Reachability>;
  /** Releases leases, waits for held locks, then closes the connections. */
  close(): Promise<void>;
}

export interface ClusterOptions {
  redisUrl: string;
  prefix: string;
  /** Empty: <hostname>-<pid>. */
  instanceId: string;
  logger?: Logger;
  /** Lease timings (tests shorten them). */
  lease?: LeaseTimings;
}
