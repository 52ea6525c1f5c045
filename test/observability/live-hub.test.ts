// The live hub's fan-out rules: one serialization per event, routing by agent and chain, api-account
// scoping, and a subscriber that stops reading is closed (1013) instead of buffering without bound.
// The hub sends what was published together, after a short wait; tests send it at once (flush).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LiveHub,
  SLOW_SUBSCRIBER_CODE,
  type LiveMessage,
  type LiveSocket,
  type LiveTransport,
  type PublishedEvent,
} from '../../src/observability/live-events.ts';

class FakeSocket implements LiveSocket {
  bufferedAmount = 0;
  readyState = 1;
  /** The text of every frame written, in order. */
  sent: string[] = [];
  writes = 0;
  closedWith: number | undefined;
  constructor(private readonly draining: boolean) {}
  write(frames: Buffer): void {
    this.writes += 1;
    for (let offset = 0; offset < frames.length;) {
      assert.equal(frames[offset], 0x81, 'a final text frame');
      const short = (frames[offset + 1] as number) & 0x7f;
      assert.ok(short < 127);
      const header = short === 126 ? 4 : 2;
      const length = short === 126 ? frames.readUInt16BE(offset + 2) : short;
      this.sent.push(frames.subarray(offset + header, offset + header + length).toString());
      offset += header + length;
    }
    if (!this.draining) this.bufferedAmount += frames.length;
  }
  close(code?: number): void {
    this.closedWith = code;
    this.readyState = 2;
  }
  terminate(): void {
    this.readyState = 3;
  }
}

function event(hub: LiveHub, agentId: string, text: string, owner?: string): PublishedEvent {
  return {
    event: {
      id: hub.nextId(),
      type: 'text',
      agentId,
      taskId: 'turn_1',
      timestamp: Date.now(),
      payload: { content: text },
    },
    routing: { topic: 'agent', ...(owner ? { owner } : {}) },
  };
}

describe('live hub', () => {
  it('drops a subscriber that stops reading with close code 1013; the others get every event', async () => {
    const dropped: string[] = [];
    const hub = new LiveHub({ maxBufferedBytes: 10_000, onDropped: (reason) => dropped.push(reason) });
    const slow = new FakeSocket(false);
    const fast = new FakeSocket(true);
    await hub.add({ socket: slow, topic: 'agent', target: 'main', account: undefined });
    await hub.add({ socket: fast, topic: 'agent', target: 'main', account: undefined });
    const chunk = 'x'.repeat(500);
    for (let index = 0; index < 1000; index++) {
      hub.publish(event(hub, 'main', chunk));
      hub.flush();
    }
    assert.equal(slow.closedWith, SLOW_SUBSCRIBER_CODE);
    assert.ok(slow.bufferedAmount <= 10_000, `held ${slow.bufferedAmount} bytes`);
    assert.ok(slow.sent.length < 30);
    assert.equal(fast.sent.length, 1000);
    assert.deepEqual(dropped, ['slow']);
    assert.deepEqual(hub.counts(), { agent: 1, chain: 0 });
  });

  it('sends what was published meanwhile in one write per subscriber, in order, on its own', async () => {
    const hub = new LiveHub({ flushMs: 0 });
    const sockets = [new FakeSocket(true), new FakeSocket(true)];
    for (const socket of sockets)
      await hub.add({ socket, topic: 'agent', target: 'main', account: undefined });
    for (const text of ['one', 'two', 'three']) hub.publish(event(hub, 'main', text));
    assert.equal(sockets[0]?.writes, 0, 'publishing only queues');
    await new Promise((resolve) => setImmediate(resolve));
    for (const socket of sockets) {
      assert.equal(socket.writes, 1);
      const events = socket.sent.map(
        (text) => JSON.parse(text) as { id: string; payload: { content: string } },
      );
      assert.deepEqual(
        events.map((entry) => entry.payload.content),
        ['one', 'two', 'three'],
      );
      assert.equal(new Set(events.map((entry) => entry.id)).size, 3);
    }
  });

  it('routes by agent, lets "*" watch every agent and shows an account only its own turns', async () => {
    const hub = new LiveHub();
    const main = new FakeSocket(true);
    const other = new FakeSocket(true);
    const every = new FakeSocket(true);
    const account = new FakeSocket(true);
    await hub.add({ socket: main, topic: 'agent', target: 'main', account: undefined });
    await hub.add({ socket: other, topic: 'agent', target: 'other', account: undefined });
    await hub.add({ socket: every, topic: 'agent', target: '*', account: undefined });
    await hub.add({ socket: account, topic: 'agent', target: 'main', account: 'app1' });
    hub.publish(event(hub, 'main', 'by a user'));
    hub.publish(event(hub, 'main', 'by app1', 'app1'));
    hub.publish(event(hub, 'main', 'by app2', 'app2'));
    hub.publish(event(hub, 'other', 'to other'));
    hub.flush();
    const contents = (socket: FakeSocket) =>
      socket.sent.map((text) => (JSON.parse(text) as { payload: { content: string } }).payload.content);
    assert.deepEqual(contents(main), ['by a user', 'by app1', 'by app2']);
    assert.deepEqual(contents(other), ['to other']);
    assert.deepEqual(contents(every), ['by a user', 'by app1', 'by app2', 'to other']);
    assert.deepEqual(contents(account), ['by app1']);
    assert.equal(hub.hasAgentSubscribers('nobody'), true, '"*" watches every agent');
  });

  it('knows when nobody listens, so turns skip building events', async () => {
    const hub = new LiveHub();
    assert.equal(hub.hasAgentSubscribers('main'), false);
    assert.equal(hub.hasChainSubscribers('c'), false);
    const socket = new FakeSocket(true);
    const subscriber = { socket, topic: 'chain' as const, target: 'c', account: undefined };
    await hub.add(subscriber);
    assert.equal(hub.hasChainSubscribers('c'), true);
    hub.remove(subscriber);
    assert.equal(hub.hasChainSubscribers('c'), false);
  });

  it('clustered: an instance sends events only for topics another instance announced, and they arrive', async () => {
    const sent: Array<{ from: string; message: LiveMessage }> = [];
    const listeners = new Map<string, (message: LiveMessage) => void>();
    const transport = (name: string): LiveTransport => ({
      async send(message) {
        sent.push({ from: name, message });
        for (const [other, listener] of listeners) if (other !== name) listener(message);
      },
      onMessage: (listener) => void listeners.set(name, listener),
      close: async () => undefined,
    });
    const a = new LiveHub({ transport: transport('a') });
    const b = new LiveHub({ transport: transport('b') });
    const published = () => sent.filter((entry) => 'published' in entry.message).length;
    a.publish(event(a, 'main', 'nobody watches'));
    assert.equal(published(), 0, 'no subscriber anywhere: nothing is sent');
    assert.equal(a.hasAgentSubscribers('main'), false);
    const socket = new FakeSocket(true);
    await b.add({ socket, topic: 'agent', target: 'main', account: undefined });
    assert.equal(a.hasAgentSubscribers('main'), true, 'b announced its subscriber');
    a.publish(event(a, 'main', 'watched on b'));
    a.publish(event(a, 'other', 'not watched'));
    b.flush();
    assert.equal(published(), 1);
    assert.deepEqual(
      socket.sent.map((text) => (JSON.parse(text) as { payload: { content: string } }).payload.content),
      ['watched on b'],
    );
    await a.close();
    await b.close();
  });
});
