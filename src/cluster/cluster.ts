// Makes the cluster (types.ts): with `cluster.redis_url` empty, one instance, and the bus, locks and
// leases are in-process (no Redis, ioredis never loaded). Set: clustered mode, all three over Redis
// (redis-cluster.ts, imported only then).
import { hostname } from 'node:os';
import { localEventBus } from './event-bus.ts';
import { alwaysGranted } from './lease.ts';
import { LocalLocks } from './locks.ts';
import type { Cluster, ClusterOptions } from './types.ts';

export function defaultInstanceId(): string {
  return `${hostname()}-${process.pid}`;
}

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
    close: async () => undefined,
  };
}
