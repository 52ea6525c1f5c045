// The CPU the server spends sending turn events to WebSocket subscribers, measured alone in this
// process: a ws server with 100 subscribers (in a process of their own, reading everything), and
// the live hub fed the events of chat turns as a busy agent makes them (20 turns at a time: status,
// text, progress and done each, a few per turn of the event loop). CPU time of this process per
// turn, less the same turns published with nobody subscribed. On a machine shared with other work
// this is far steadier than end-to-end latency, which moves with everything else that runs.
//
// BENCH_BASELINE_SRC=/path/to/other/checkout measures that checkout's live hub too, side by side.
// Prints one JSON line: {"bench":"ws-fanout", ...}.
import { createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { codeVersion, progress, round, startHelper } from './_shared.ts';

const SUBSCRIBERS = 100;
const TURNS = Number(process.env['BENCH_TURNS'] ?? 2000);
const CONCURRENT = 20;
const BASELINE = process.env['BENCH_BASELINE_SRC'];

interface Hub {
  add(subscriber: unknown): Promise<void>;
  publish(published: unknown): void;
  nextId(): string;
  hasAgentSubscribers(agentId: string): boolean;
  flush?: () => void;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Publishes TURNS turns, CONCURRENT at a time, one event of each running turn per loop turn. */
async function runTurns(hub: Hub): Promise<void> {
  const publish = (turn: number, type: string, payload: Record<string, unknown>) => {
    if (!hub.hasAgentSubscribers('bench')) return;
    hub.publish({
      event: {
        id: hub.nextId(),
        type,
        agentId: 'bench',
        taskId: `turn_${turn}`,
        timestamp: Date.now(),
        payload,
      },
      routing: { topic: 'agent' },
    });
  };
  for (let first = 0; first < TURNS; first += CONCURRENT) {
    const turns = Array.from({ length: CONCURRENT }, (_, index) => first + index);
    for (const turn of turns) publish(turn, 'status', { status: 'running', channel: 'api' });
    await tick();
    for (const turn of turns) publish(turn, 'text', { content: 'Hello! How can I help you today?' });
    await tick();
    for (const turn of turns)
      publish(turn, 'progress', {
        progress: 1,
        message: 'model call 1 finished',
        usage: { inputTokens: 12, outputTokens: 9 },
      });
    await tick();
    for (const turn of turns)
      publish(turn, 'done', {
        content: 'Hello! How can I help you today?',
        durationMs: 12,
        usage: { inputTokens: 12, outputTokens: 9 },
      });
    await tick();
  }
  hub.flush?.();
}

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** CPU µs per turn with 100 subscribers, less the same without any, for the hub of `src`. */
async function measure(src: string, label: string): Promise<{ perTurn: number; events: number }> {
  const module = (await import(join(src, 'src/observability/live-events.ts'))) as {
    LiveHub: new (options: object) => Hub;
  };
  const hub = new module.LiveHub({ maxBufferedBytes: 64 * 1024 * 1024 });
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  let corked = new Set<Duplex>();
  let added = 0;
  const uncork = () => {
    for (const socket of corked) socket.uncork();
    corked = new Set();
  };
  server.on('upgrade', (request, connection: Duplex, head) => {
    wss.handleUpgrade(request, connection, head, (socket: WebSocket) => {
      // Both shapes of the hub's socket: `write` of ready frames (now), `send` of one event (before,
      // with the connection corked until the next loop turn as that version did).
      const live = {
        get bufferedAmount() {
          return socket.bufferedAmount;
        },
        get readyState() {
          return socket.readyState;
        },
        write: (frames: Buffer) => void connection.write(frames),
        send(data: Buffer) {
          if (!corked.has(connection)) {
            if (corked.size === 0) setImmediate(uncork);
            corked.add(connection);
            connection.cork();
          }
          socket.send(data, { binary: false });
        },
        close: (code?: number, reason?: string) => socket.close(code, reason),
        terminate: () => socket.terminate(),
      };
      void hub.add({ socket: live, topic: 'agent', target: 'bench', account: undefined });
      added += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    progress(`ws-fanout: ${label}, ${TURNS} turns without subscribers`);
    await runTurns(hub);
    let started = cpuMicros();
    await runTurns(hub);
    const quiet = cpuMicros() - started;
    const subscribers = await startHelper('_ws-subscribers.ts', [
      `ws://127.0.0.1:${port}/bench`,
      String(SUBSCRIBERS),
    ]);
    while (added < SUBSCRIBERS) await tick();
    progress(`ws-fanout: ${label}, ${TURNS} turns with ${SUBSCRIBERS} subscribers`);
    await runTurns(hub);
    started = cpuMicros();
    await runTurns(hub);
    const watched = cpuMicros() - started;
    // Everything written reaches the subscribers before they stop (or 10 s pass).
    const expected = 2 * TURNS * 4 * SUBSCRIBERS;
    const deadline = performance.now() + 10_000;
    const counted = () => Number([...subscribers.stderr().matchAll(/count (\d+)/g)].at(-1)?.[1] ?? 0);
    while (counted() < expected && performance.now() < deadline) {
      subscribers.process.kill('SIGUSR1');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await subscribers.stop();
    const events = Number(/received (\d+)/.exec(subscribers.stderr())?.[1] ?? 0);
    return { perTurn: round((watched - quiet) / TURNS, 2), events };
  } finally {
    for (const socket of wss.clients) socket.terminate();
    server.close();
  }
}

const after = await measure(join(import.meta.dirname, '..'), 'this checkout');
const before = BASELINE ? await measure(BASELINE, BASELINE) : undefined;
console.log(
  JSON.stringify({
    bench: 'ws-fanout',
    code: codeVersion(),
    subscribers: SUBSCRIBERS,
    turns: TURNS,
    // CPU µs this process spends per turn sending its four events to 100 subscribers.
    cpuMicrosPerTurn: after.perTurn,
    eventsDelivered: after.events,
    ...(before
      ? { baseline: BASELINE, beforeCpuMicrosPerTurn: before.perTurn, beforeEventsDelivered: before.events }
      : {}),
  }),
);
