// Change notifications over Redis pub/sub, on the channel `<prefix>events`. Each message names the
// instance it came from, so an instance ignores its own. Pub/sub keeps nothing for a disconnected
// subscriber: after a reconnection, listeners get a `resync` to reload everything.
import type { Redis } from 'ioredis';
import { randomToken } from '../core/ids.ts';
import { peerPayload } from '../core/peer-envelope.ts';
import type { Logger } from '../core/logger.ts';
import type { ClusterEvent, ClusterEventListener, EventBus } from './event-bus.ts';

interface Envelope {
  from: string;
  event: ClusterEvent;
}

function isEvent(value: unknown): value is ClusterEvent {
  const event = value as { type?: unknown; id?: unknown; change?: unknown } | null;
  if (!event || typeof event !== 'object') return false;
  if (event.type === 'config') return true;
  return (
    event.type === 'chain' &&
    typeof event.id === 'string' &&
    (event.change === 'saved' || event.change === 'removed')
  );
}

export class RedisEventBus implements EventBus {
  private readonly listeners = new Set<ClusterEventListener>();
  private readonly channel: string;
  private subscribedOnce = false;
  /** Tells this process's own messages apart, even if two instances were given one id. */
  private readonly origin = randomToken(12);

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly options: { prefix: string; instanceId: string; logger: Logger },
  ) {
    this.channel = `${options.prefix}events`;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
    // ioredis subscribes again by itself after a reconnection; what was sent meanwhile is lost.
    subscriber.on('ready', () => {
      if (this.subscribedOnce) this.deliver({ type: 'resync' });
    });
  }

  /** Subscribes; resolves once Redis confirmed (or failed: ioredis keeps trying on reconnection). */
  async start(): Promise<void> {
    await this.subscriber.subscribe(this.channel).catch((error: unknown) => {
      this.options.logger.warn({ err: String(error) }, 'cannot subscribe to cluster events yet');
    });
    this.subscribedOnce = true;
  }

  async publish(event: ClusterEvent): Promise<void> {
    const envelope: Envelope = { from: this.origin, event };
    await this.publisher.publish(this.channel, JSON.stringify(envelope)).catch((error: unknown) => {
      this.options.logger.warn(
        { event: event.type, err: String(error) },
        'a cluster notification was not sent',
      );
    });
  }

  subscribe(listener: ClusterEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(text: string): void {
    const event = peerPayload(text, this.origin, 'event', isEvent);
    if (event !== undefined) this.deliver(event);
  }

  private deliver(event: ClusterEvent): void {
    for (const listener of this.listeners) {
      Promise.resolve()
        .then(() => listener(event))
        .catch((error: unknown) =>
          this.options.logger.warn(
            { event: event.type, err: String(error) },
            'a cluster change could not be applied',
          ),
        );
    }
  }
}
