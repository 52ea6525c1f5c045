// The one way this service opens a Redis connection. Loaded only in clustered mode (cluster.ts
// imports it on demand), so a single instance never loads ioredis nor connects anywhere.
import { Redis, type RedisOptions } from 'ioredis';
import { redactUrlCredentials } from '../core/url-credentials.ts';
import type { Logger } from '../core/logger.ts';

export interface RedisConnectionOptions {
  url: string;
  /** What this connection is for (commands, events, a BullMQ queue): shown in logs and CLIENT LIST. */
  role: string;
  instanceId: string;
  logger: Logger;
  /** Options over ours (BullMQ workers need maxRetriesPerRequest: null). */
  overrides?: RedisOptions;
}

/** The URL as logs may show it: no password. */
export function displayRedisUrl(url: string): string {
  return redactUrlCredentials(url);
}

export function connectRedis(options: RedisConnectionOptions): Redis {
  const shown = displayRedisUrl(options.url);
  const redis = new Redis(options.url, {
    connectionName: `agent-service:${options.instanceId}:${options.role}`.replace(/\s/g, '_'),
    // A command waits through at most two reconnection attempts, then fails; callers retry or
    // answer 503, and /ready reports Redis as unreachable.
    maxRetriesPerRequest: 2,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * times, 1_000),
    ...options.overrides,
  });
  let failing = false;
  redis.on('error', (error: Error) => {
    // ioredis repeats the error on every reconnection attempt: log the first of each outage only.
    if (failing) return;
    failing = true;
    // The message names host and port (never the password); the URL is shown redacted.
    options.logger.warn({ redis: shown, role: options.role, err: error.message }, 'redis connection failed');
  });
  redis.on('ready', () => {
    if (failing) options.logger.info({ redis: shown, role: options.role }, 'redis connection restored');
    failing = false;
  });
  return redis;
}
