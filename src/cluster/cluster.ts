// The coordination of instances, as the rest of the service sees it: an event bus, locks and leases.
// `cluster.redis_url` empty: one instance, and these are in-process (no Redis, ioredis never loaded).
// Set: clustered mode, all three over Redis (redis-cluster.ts, imported only then).
import { hostname } from 'node:os';
import type { Redis, RedisOptions } from 'ioredis';
import { localEventBus, type EventBus } from './event-bus.ts';
import { alwaysGranted, type ConnectionLease } from './lease.ts';
import { LocalLocks, type Locks } from './locks.ts';
import type { LeaseTimings } from './redis-lease.ts';

export interface ClusterLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

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
  /** Sets the logger used from now on (the server's, once it exists). */
  useLogger(logger: ClusterLogger): void;
  /** Releases leases, waits for held locks, then closes the connections. */
  close(): Promise<void>;
}

export interface ClusterOptions {
  redisUrl: string;
  prefix: string;
  /** Empty: <hostname>-<pid>. */
  instanceId: string;
  logger?: ClusterLogger;
  /** Lease timings (tests shorten them). */
  lease?: LeaseTimings;
}

export function defaultInstanceId(): string {
  return `${hostname()}-${process.pid}`;
}

/** Until the server's logger exists (start-up), lines go to stderr. */
const toStderr: ClusterLogger = {
  info: (object, message) => void process.stderr.write(`${message} ${JSON.stringify(object)}\n`),
  warn: (object, message) => void process.stderr.write(`WARNING: ${message} ${JSON.stringify(object)}\n`),
};

export async function createCluster(options: ClusterOptions): Promise<Cluster> {
  const instanceId = options.instanceId || defaultInstanceId();
  if (options.redisUrl) {
    const { createRedisCluster } = await import('./redis-cluster.ts');
    return createRedisCluster({ ...options, instanceId });
  }
  return {
    mode: 'single',
    instanceId,
    prefix: options.prefix,
    bus: localEventBus,
    locks: new LocalLocks(),
    lease: alwaysGranted,
    check: async () => 'not configured',
    useLogger: () => undefined,
    close: async () => undefined,
  };
}

export function loggerRef(initial: ClusterLogger | undefined): {
  get: () => ClusterLogger;
  set: (logger: ClusterLogger) => void;
} {
  let current = initial ?? toStderr;
  return { get: () => current, set: (logger) => (current = logger) };
}
