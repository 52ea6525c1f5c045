// The live event stream behind the WebSocket API: every turn and chain-run event is published here
// once; the hub sends it to the subscribers of its agent (or chain) on this instance and, clustered,
// hands it to a transport that delivers it to the hubs of the other instances.
//
// Sending is off the turn's path and costs little per subscriber: publishing only queues the event;
// every `flushMs` the queue is sent, each event serialized and framed as a WebSocket text frame
// once, and each subscriber gets one write holding all the frames it may see (subscribers that see
// the same events share one buffer). A subscriber whose socket holds more than `maxBufferedBytes`
// unsent is closed, so a slow reader never slows a turn nor makes the process hold its backlog.
import { randomToken } from '../core/ids.ts';
import type { LiveEvent, LiveEventType } from './live-event.ts';

/** What the hub routes on, besides the event: never sent to subscribers. */
export interface LiveRouting {
  /** `agent`: a turn's event, for subscribers of agentId; `chain`: a chain run's, for those of chainId. */
  topic: 'agent' | 'chain';
  chainId?: string;
  /** The api-channel account whose request started the turn; such events reach only that account. */
  owner?: string;
}

export interface PublishedEvent {
  event: LiveEvent;
  routing: LiveRouting;
}

/** The part of a WebSocket the hub uses. */
export interface LiveSocket {
  /** Bytes written and not yet sent (ws's bufferedAmount). */
  readonly bufferedAmount: number;
  readonly readyState: number;
  /** Writes complete, unmasked WebSocket frames (one or more, see `textFrame`) to the connection as they are. */
  write(frames: Buffer): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
}

export interface Subscriber {
  socket: LiveSocket;
  topic: 'agent' | 'chain';
  /** The agent id (`*`: every agent) or chain id it watches. */
  target: string;
  /** An api account sees only its own turns; undefined sees everything. */
  account: string | undefined;
}

/**
 * What instances tell each other (clustered mode): events, and which topics have subscribers, so an
 * instance publishes only what somebody somewhere watches. `hello` asks the others to say theirs.
 */
export type LiveMessage = { published: PublishedEvent } | { interest: string[] } | { hello: true };

/** Delivers messages between instances (clustered mode). */
export interface LiveTransport {
  /** Resolves once Redis took the message (never rejects). */
  send(message: LiveMessage): Promise<void>;
  /** Called with the messages of the other instances. */
  onMessage(listener: (message: LiveMessage) => void): void;
  close(): Promise<void>;
}

/** How long an announced interest holds without being repeated; announcements repeat at a third. */
const INTEREST_TTL_MS = 60_000;

/** Close code sent to a subscriber that could not keep up (1013: try again later). */
export const SLOW_SUBSCRIBER_CODE = 1013;
const OPEN = 1;

export interface LiveHubOptions {
  /** Bytes a subscriber's socket may hold unsent before it is dropped (default 1 MiB). */
  maxBufferedBytes?: number;
  /** How long published events wait to be sent together (default 20 ms; 0: the next turn of the loop). */
  flushMs?: number;
  transport?: LiveTransport;
  /** `count` events of `type` were written to subscribers. */
  onSent?: (type: LiveEventType, count: number) => void;
  onDropped?: (reason: string) => void;
}

/** A server-to-client WebSocket text frame (RFC 6455 5.2: FIN, opcode 1, unmasked) holding `text`. */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81;
  if (header === 2) frame[1] = length;
  else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  frame.write(text, header);
  return frame;
}

/** An event waiting to be sent, with its frame once made. */
interface Queued {
  published: PublishedEvent;
  frame: Buffer | undefined;
}

/** What one subscriber may see of the queue: its events' frames, joined, and how many of each type. */
interface Batch {
  bytes: Buffer;
  types: Map<LiveEventType, number>;
}

export class LiveHub {
  private readonly byAgent = new Map<string, Set<Subscriber>>();
  private readonly byChain = new Map<string, Set<Subscriber>>();
  private readonly everyAgent = new Set<Subscriber>();
  private readonly maxBuffered: number;
  private sequence = 0;
  private readonly prefix = randomToken(6);
  /** Topics other instances have subscribers for (`agent:<id>`, `agent:*`, `chain:<id>`), until when. */
  private readonly remote = new Map<string, number>();
  private readonly announcer: NodeJS.Timeout | undefined;
  private readonly flushMs: number;
  private queue: Queued[] = [];
  private flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;

  constructor(private readonly options: LiveHubOptions = {}) {
    this.maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
    this.flushMs = options.flushMs ?? 20;
    const transport = options.transport;
    if (transport) {
      transport.onMessage((message) => this.receive(message));
      this.announcer = setInterval(() => void this.announce(this.localKeys()), INTEREST_TTL_MS / 3);
      this.announcer.unref();
      void transport.send({ hello: true });
    }
  }

  /** A new event id: unique per process, cheap (no random bytes per event). */
  nextId(): string {
    this.sequence += 1;
    return `evt_${this.prefix}${this.sequence.toString(36)}`;
  }

  /** Whether a subscriber here, or (clustered) on another instance, watches the chain. */
  hasChainSubscribers(chainId: string): boolean {
    return this.byChain.has(chainId) || this.watchedElsewhere(`chain:${chainId}`);
  }

  /** Whether a subscriber here, or (clustered) on another instance, watches the agent. */
  hasAgentSubscribers(agentId: string): boolean {
    return (
      this.everyAgent.size > 0 ||
      this.byAgent.has(agentId) ||
      this.watchedElsewhere(`agent:${agentId}`) ||
      this.watchedElsewhere('agent:*')
    );
  }

  publish(published: PublishedEvent): void {
    const { event, routing } = published;
    const key = routing.topic === 'agent' ? `agent:${event.agentId}` : `chain:${routing.chainId ?? ''}`;
    if (this.watchedElsewhere(key) || (routing.topic === 'agent' && this.watchedElsewhere('agent:*')))
      void this.options.transport?.send({ published });
    this.deliver(published);
  }

  /** Adds a subscriber; resolves once the other instances were told (clustered) that it watches. */
  async add(subscriber: Subscriber): Promise<void> {
    if (subscriber.topic === 'agent' && subscriber.target === '*') this.everyAgent.add(subscriber);
    else {
      const index = subscriber.topic === 'agent' ? this.byAgent : this.byChain;
      let set = index.get(subscriber.target);
      if (!set) index.set(subscriber.target, (set = new Set()));
      set.add(subscriber);
    }
    await this.announce([`${subscriber.topic}:${subscriber.target}`]);
  }

  private watchedElsewhere(key: string): boolean {
    if (this.remote.size === 0) return false;
    const until = this.remote.get(key);
    return until !== undefined && until > Date.now();
  }

  private localKeys(): string[] {
    return [
      ...(this.everyAgent.size > 0 ? ['agent:*'] : []),
      ...[...this.byAgent.keys()].map((id) => `agent:${id}`),
      ...[...this.byChain.keys()].map((id) => `chain:${id}`),
    ];
  }

  private async announce(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.options.transport?.send({ interest: keys });
  }

  private receive(message: LiveMessage): void {
    if ('published' in message) this.deliver(message.published);
    else if ('interest' in message) {
      const until = Date.now() + INTEREST_TTL_MS;
      for (const key of message.interest) this.remote.set(key, until);
    } else void this.announce(this.localKeys());
  }

  remove(subscriber: Subscriber): void {
    if (this.everyAgent.delete(subscriber)) return;
    const index = subscriber.topic === 'agent' ? this.byAgent : this.byChain;
    const set = index.get(subscriber.target);
    if (!set) return;
    set.delete(subscriber);
    if (set.size === 0) index.delete(subscriber.target);
  }

  /** Subscribers on this instance, by topic. */
  counts(): Record<string, number> {
    let agent = this.everyAgent.size;
    let chain = 0;
    for (const set of this.byAgent.values()) agent += set.size;
    for (const set of this.byChain.values()) chain += set.size;
    return { agent, chain };
  }

  /** Closes every subscriber (server shutdown) and the transport. */
  async close(): Promise<void> {
    const all = [
      ...this.everyAgent,
      ...[...this.byAgent.values(), ...this.byChain.values()].flatMap((s) => [...s]),
    ];
    this.flush();
    for (const subscriber of all) subscriber.socket.close(1001, 'server shutting down');
    this.everyAgent.clear();
    this.byAgent.clear();
    this.byChain.clear();
    clearInterval(this.announcer);
    await this.options.transport?.close();
  }

  /** Queues an event for the subscribers on this instance (none: nothing is kept). */
  private deliver(published: PublishedEvent): void {
    const { event, routing } = published;
    const watched =
      routing.topic === 'agent'
        ? this.everyAgent.size > 0 || this.byAgent.has(event.agentId)
        : routing.chainId !== undefined && this.byChain.has(routing.chainId);
    if (!watched) return;
    this.queue.push({ published, frame: undefined });
    if (this.flushTimer !== undefined) return;
    this.flushTimer =
      this.flushMs > 0 ? setTimeout(this.flush, this.flushMs).unref() : setImmediate(this.flush).unref();
  }

  /** Sends what is queued now: one write per subscriber. */
  readonly flush = (): void => {
    if (this.flushTimer !== undefined) {
      if (this.flushMs > 0) clearTimeout(this.flushTimer as NodeJS.Timeout);
      else clearImmediate(this.flushTimer as NodeJS.Immediate);
      this.flushTimer = undefined;
    }
    const queue = this.queue;
    if (queue.length === 0) return;
    this.queue = [];
    const recipients = new Set<Subscriber>();
    const agents = new Set<string>();
    const chains = new Set<string>();
    for (const { published } of queue) {
      if (published.routing.topic === 'agent') agents.add(published.event.agentId);
      else if (published.routing.chainId !== undefined) chains.add(published.routing.chainId);
    }
    for (const agentId of agents)
      for (const subscriber of this.byAgent.get(agentId) ?? []) recipients.add(subscriber);
    if (agents.size > 0) for (const subscriber of this.everyAgent) recipients.add(subscriber);
    for (const chainId of chains)
      for (const subscriber of this.byChain.get(chainId) ?? []) recipients.add(subscriber);
    // Subscribers of one target and account see the same events: their batch is made once.
    const batches = new Map<string, Batch | undefined>();
    const sent = new Map<LiveEventType, number>();
    for (const subscriber of recipients) {
      const key = `${subscriber.topic}\n${subscriber.target}\n${subscriber.account ?? ''}`;
      let batch = batches.get(key);
      if (!batches.has(key)) batches.set(key, (batch = this.batchFor(subscriber, queue)));
      if (batch && this.write(subscriber, batch.bytes))
        for (const [type, count] of batch.types) sent.set(type, (sent.get(type) ?? 0) + count);
    }
    for (const [type, count] of sent) this.options.onSent?.(type, count);
  };

  private batchFor(subscriber: Subscriber, queue: Queued[]): Batch | undefined {
    const frames: Buffer[] = [];
    const types = new Map<LiveEventType, number>();
    let length = 0;
    for (const queued of queue) {
      const { event, routing } = queued.published;
      if (routing.topic !== subscriber.topic) continue;
      const target = routing.topic === 'agent' ? event.agentId : routing.chainId;
      if (subscriber.target !== target && !(routing.topic === 'agent' && subscriber.target === '*')) continue;
      if (subscriber.account !== undefined && subscriber.account !== routing.owner) continue;
      queued.frame ??= textFrame(JSON.stringify(event));
      frames.push(queued.frame);
      length += queued.frame.length;
      types.set(event.type, (types.get(event.type) ?? 0) + 1);
    }
    if (frames.length === 0) return undefined;
    return { bytes: frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames, length), types };
  }

  /** Writes a batch to a subscriber, or drops the subscriber when its socket is too far behind. */
  private write(subscriber: Subscriber, bytes: Buffer): boolean {
    const { socket } = subscriber;
    if (socket.readyState !== OPEN) return false;
    if (socket.bufferedAmount + bytes.length > this.maxBuffered) {
      this.drop(subscriber);
      return false;
    }
    socket.write(bytes);
    return true;
  }

  /** Closes a subscriber that fell behind; a socket that cannot even take the close frame is cut. */
  private drop(subscriber: Subscriber): void {
    this.remove(subscriber);
    this.options.onDropped?.('slow');
    subscriber.socket.close(SLOW_SUBSCRIBER_CODE, 'subscriber too slow: events were not read in time');
    setTimeout(() => {
      if (subscriber.socket.readyState !== 3) subscriber.socket.terminate();
    }, 2000).unref();
  }
}
