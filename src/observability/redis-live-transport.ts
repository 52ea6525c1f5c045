// Live events between instances over Redis pub/sub, on the channel `<prefix>live` beside the change
// notifications of the cluster's event bus (`<prefix>events`). Every instance publishes the events
// of its turns; each hub delivers the others' events to its own subscribers. Pub/sub keeps nothing:
// a subscriber connected during a Redis outage misses those events, as a live view may.
import type { Redis } from 'ioredis';
import { randomToken } from '../core/ids.ts';
import type { LiveTransport, PublishedEvent } from './live-events.ts';

interface Envelope {
  from: string;
  published: PublishedEvent;
}

function isPublished(value: unknown): value is PublishedEvent {
  const candidate = value as { event?: { type?: unknown; agentId?: unknown }; routing?: { topic?: unknown } };
  return (
    typeof candidate?.event?.type === 'string' &&
    typeof candidate.event.agentId === 'string' &&
    (candidate.routing?.topic === 'agent' || candidate.routing?.topic === 'chain')
  );
}

export class RedisLiveTransport implements LiveTransport {
  private readonly channel: string;
  private readonly origin = randomToken(12);
  private listener: ((event: PublishedEvent) => void) | undefined;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    prefix: string,
    private readonly warn: (message: string) => void,
  ) {
    this.channel = `${prefix}live`;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
  }

  async start(): Promise<void> {
    await this.subscriber
      .subscribe(this.channel)
      .catch((error: unknown) => this.warn(`cannot subscribe to live events yet: ${String(error)}`));
  }

  publish(published: PublishedEvent): void {
    const envelope: Envelope = { from: this.origin, published };
    this.publisher.publish(this.channel, JSON.stringify(envelope)).catch(() => {
      // A live view may miss an event while Redis is away; the turn itself must not notice.
    });
  }

  onEvent(listener: (event: PublishedEvent) => void): void {
    this.listener = listener;
  }

  async close(): Promise<void> {
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  private receive(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    if (envelope.from === this.origin || !isPublished(envelope.published)) return;
    this.listener?.(envelope.published);
  }
}
