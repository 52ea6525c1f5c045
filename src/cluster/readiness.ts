// What GET /ready reports: whether this instance can reach what it depends on (the database, and
// Redis in clustered mode). A load balancer sends traffic only to instances that answer 200.
import type { Cluster, Reachability } from './types.ts';

export interface Readiness {
  ready: boolean;
  instance: string;
  mode: Cluster['mode'];
  checks: { database: Reachability; redis: Reachability };
}

const CHECK_TIMEOUT_MS = 1_000;

/** `probe` resolving within a second is reachable; rejecting or hanging is not. */
export async function reachable(probe: () => Promise<unknown>): Promise<Reachability> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Reachability>((resolve) => {
    timer = setTimeout(() => resolve('unreachable'), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      probe().then(
        (): Reachability => 'ok',
        (): Reachability => 'unreachable',
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function readiness(cluster: Cluster, probeDatabase: () => Promise<unknown>): Promise<Readiness> {
  const [database, redis] = await Promise.all([reachable(probeDatabase), cluster.check()]);
  return {
    ready: database === 'ok' && redis !== 'unreachable',
    instance: cluster.instanceId,
    mode: cluster.mode,
    checks: { database, redis },
  };
}
