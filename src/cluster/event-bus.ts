// Change notifications between instances. Whatever one instance changes on the shared data root or
// in the shared config is announced here; every other instance reloads what changed (build, then
// swap, as a local reload does). One instance alone has nobody to tell: its bus is a no-op.

/** What changed: the config file (providers, bindings, channel accounts, users), or one chain file. */
export type ClusterEvent =
  | { type: 'config' }
  | { type: 'chain'; id: string; change: 'saved' | 'removed' }
  /** Delivered locally after a lost connection came back: notifications may have been missed. */
  | { type: 'resync' };

export type ClusterEventListener = (event: ClusterEvent) => void | Promise<void>;

export interface EventBus {
  /** Tells the other instances; never throws (a lost notification is logged, not the caller's failure). */
  publish(event: ClusterEvent): Promise<void>;
  /** Called for events of other instances only; returns the unsubscribe function. */
  subscribe(listener: ClusterEventListener): () => void;
}

/** The bus of a single instance: nothing to tell, nothing to hear. */
export const localEventBus: EventBus = {
  publish: async () => undefined,
  subscribe: () => () => undefined,
};
