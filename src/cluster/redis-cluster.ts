// Clustered mode: the bus, locks and leases over one Redis deployment. Imported by cluster.ts only
// when cluster.redis_url is set.
import type { Redis, RedisOptions } from 'ioredis';
import { silentLogger } from '../core/logger.ts';
import type { Cluster, ClusterOptions } from './types.ts';
import { reachable } from './readiness.ts';
import { connectRedis } from './redis-connection.ts';
import { RedisEventBus } from './redis-event-bus.ts';
import { RedisLease } from './redis-lease.ts';
import { RedisLocks } from './redis-locks.ts';

export async function createRedisCluster(options: ClusterOptions & { instanceId: string }): Promise<Cluster> {
  const logger = options.logger ?? silentLogger;
  const { instanceId, prefix } = options;
  const extra = new Set<Redis>();
  const connect = (role: string, overrides?: RedisOptions): Redis =>
    connectRedis({
      url: options.redisUrl,
      role,
      instanceId,
      logger,
      ...(overrides ? { overrides } : {}),
    });
  const commands = connect('commands');
  const subscriber = connect('events');
  const bus = new RedisEventBus(commands, subscriber, { prefix, instanceId, logger });
  await bus.start();
  const locks = new RedisLocks(commands, { prefix, logger });
  const lease = new RedisLease(commands, { prefix, instanceId, logger, ...options.lease });
  return {
    mode: 'clustered',
    instanceId,
    prefix,
    bus,
    locks,
    lease,
    redis: commands,
    connect(role, overrides) {
      const redis = connect(role, overrides);
      extra.add(redis);
      redis.once('end', () => extra.delete(redis));
      return redis;
    },
    check: () =>
      reachable(async () => {
        if ((await commands.ping()) !== 'PONG') throw new Error('unexpected answer to PING');
      }),
    async close() {
      await lease.releaseAll();
      await locks.drain();
      for (const redis of [subscriber, ...extra, commands]) {
        if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
        else redis.disconnect();
      }
    },
  };
}
