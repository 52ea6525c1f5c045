// Live events between instances over Redis pub/sub, on the channel `<prefix>live` beside the change
// notifications of the cluster's event bus (`<prefix>events`). Every instance publishes the events
// of its turns; each hub delivers the others' events to its own subscribers. Pub/sub keeps nothing:
// a subscriber connected during a Redis outage misses those events, as a live view may.
import type { Redis } from 'ioredis';
import { randomToken } from '../core/ids.ts';
import { peerPayload } from '../core/peer-envelope.ts';
import type { LiveMessage, LiveTransport } from './live-events.ts';

interface Envelope {
  from: string;
  message: LiveMessage;
}

function isMessage(value: unknown): value is LiveMessage {
  const candidate = value as {
    published?: { event?: { type?: unknown; agentId?: unknown }; routing?: { topic?: unknown } };
    interest?: unknown;
    hello?: unknown;
  } | null;
  if (!candidate || typeof candidate !== 'object') return false;
  if (candidate.hello === true) return true;
  if (Array.isArray(candidate.interest)) return candidate.interest.every((key) => typeof key === 'string');
  const published = candidate.published;
  return (
    typeof published?.event?.type === 'string' &&
    typeof published.event.agentId === 'string' &&
    (published.routing?.topic === 'agent' || published.routing?.topic === 'chain')
  );
}

export class RedisLiveTransport implements LiveTransport {
  private readonly channel: string;
  private readonly origin = randomToken(12);
  private listener: ((message: LiveMessage) => void) | undefined;

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

  async send(message: LiveMessage): Promise<void> {
    const envelope: Envelope = { from: this.origin, message };
    await this.publisher.publish(this.channel, JSON.stringify(envelope)).catch(() => {
      // A live view may miss an event while Redis is away; the turn itself must not notice.
    });
  }

  onMessage(listener: (message: LiveMessage) => void): void {
    this.listener = listener;
  }

  async close(): Promise<void> {
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  private receive(text: string): void {
    const message = peerPayload(text, this.origin, 'message', isMessage);
    if (message !== undefined) this.listener?.(message);
  }
}
