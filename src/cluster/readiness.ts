// What GET /ready reports: whether this instance can reach what it depends on (the database, and
// Redis in clustered mode) and can write to its data root (not a full disk). A load balancer sends
// traffic only to instances that answer 200.
import type { DiskState } from '../core/disk-space.ts';
import type { Cluster, Reachability } from './types.ts';

export interface Readiness {
  ready: boolean;
  instance: string;
  mode: Cluster['mode'];
  checks: { database: Reachability; redis: Reachability; disk: DiskState };
}

const CHECK_TIMEOUT_MS = 1_000;

/** What `probe` answers within a second; `otherwise` when it rejects or hangs. */
async function withinCheckTime<T>(probe: () => Promise<T>, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(otherwise), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe().catch(() => otherwise), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `probe` resolving within a second is reachable; rejecting or hanging is not. */
export function reachable(probe: () => Promise<unknown>): Promise<Reachability> {
  return withinCheckTime(async (): Promise<Reachability> => (await probe(), 'ok'), 'unreachable');
}

export async function readiness(
  cluster: Cluster,
  probeDatabase: () => Promise<unknown>,
  probeDisk: () => Promise<DiskState>,
): Promise<Readiness> {
  const [database, redis, disk] = await Promise.all([
    reachable(probeDatabase),
    cluster.check(),
    // A file system that does not answer within the check's time counts as unwritable.
    withinCheckTime(probeDisk, 'full' as DiskState),
  ]);
  return {
    ready: database === 'ok' && redis !== 'unreachable' && disk === 'ok',
    instance: cluster.instanceId,
    mode: cluster.mode,
    checks: { database, redis, disk },
  };
}
