// The chaos run (issue 26): turns over HTTP and two fake chat platforms (Slack over the Events API,
// Telegram long polling) against three clustered instances, with a share of model calls faulted,
// SIGKILL of an instance during turns in flight, a Redis restart (a redis-server of our own) and a
// PostgreSQL outage (a TCP proxy in front of the shared server is cut, then restored). Every
// inbound message and every reply is recorded, and the invariants are counted:
//   answered: turns that ended with an answer or a visible error (HTTP error, channel apology)
//   lost: acknowledged channel messages never answered; duplicates: answered more than once
//   stuck: conversations whose follow-up message after the run is not answered
//   maxPastTimeoutMs: the longest HTTP turn past the turn timeout
//   afterKillMs: from the kill until every conversation it cut (acknowledged, unanswered) is answered
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { THINKING } from '../../src/channels/slack/slack-send.ts';
import { startFakeSlack } from '../fakes/fake-slack.ts';
import { startFakeTelegram } from '../fakes/fake-telegram.ts';
import { startFaultModel } from '../fakes/fault-model.ts';
import { startRedisProcess } from '../fakes/redis-process.ts';
import { slackEvents } from '../fakes/slack-events.ts';
import { startTcpProxy } from '../fakes/tcp-proxy.ts';
import { createTestDatabase } from '../fakes/test-database.ts';
import { SIGNING_SECRET, kill9, site, siteConfig, until } from './chaos-harness.ts';

export interface ChaosOptions {
  turns: number;
  /** Turns in flight at once. */
  concurrency: number;
  faultRate: number;
  /** How long PostgreSQL is unreachable, in ms. */
  databaseOutageMs: number;
  /** Turn timeout (server.request_timeout_ms), in ms. */
  turnTimeoutMs: number;
  seed?: number;
}

export interface ChaosFigures {
  turns: number;
  faultsInjected: number;
  answered: number;
  visibleErrors: number;
  stuck: number;
  duplicates: number;
  lost: number;
  maxPastTimeoutMs: number;
  afterKillMs: number;
  killedInFlight: number;
  durationMs: number;
}

const TOKEN = '123456:chaos-token';

export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const started = Date.now();
  // The harness's own lag counts in the figures it measures (a late poll is a late answer).
  const lag = monitorEventLoopDelay({ resolution: 20 });
  lag.enable();
  const model = await startFaultModel({ rate: options.faultRate, seed: options.seed ?? 26, latencyMs: 300 });
  const slack = await startFakeSlack();
  const telegram = await startFakeTelegram({ tokens: [TOKEN], maxHoldMs: 1_000 });
  const redis = await startRedisProcess();
  const database = await createTestDatabase('postgres', process.env);
  const proxy = await startTcpProxy(Number(new URL(database.databaseUrl).port || 5432));
  const proxied = new URL(database.databaseUrl);
  proxied.port = String(proxy.port);
  const config = siteConfig({
    models: model.modelsConfig({
      timeout_ms: options.turnTimeoutMs - 1_000,
      first_byte_timeout_ms: 2_000,
      idle_timeout_ms: 1_000,
      max_retries: 1,
    }),
    slack,
    extra: {
      data: { database_url: proxied.toString() },
      cluster: { redis_url: redis.url, key_prefix: `chaos-${randomBytes(4).toString('hex')}:` },
    },
  });
  const server = config['server'] as Record<string, unknown>;
  server['request_timeout_ms'] = options.turnTimeoutMs;
  // The turn's own limit (waiting for its session and the database included); request_timeout_ms
  // alone bounds only the wait for a session's lock, so turns waiting on the database ran past it.
  config['agents'] = { turn_timeout_ms: options.turnTimeoutMs };
  const channels = config['channels'] as Record<string, unknown>;
  channels['telegram'] = {
    enabled: true,
    accounts: { tg: { enabled: true, app_secret: TOKEN, api_base: telegram.url } },
  };
  const place = await site(config);
  const events = slackEvents(slack, 'ws', SIGNING_SECRET);
  const figures: ChaosFigures = {
    turns: 0,
    faultsInjected: 0,
    answered: 0,
    visibleErrors: 0,
    stuck: 0,
    duplicates: 0,
    lost: 0,
    maxPastTimeoutMs: 0,
    afterKillMs: 0,
    killedInFlight: 0,
    durationMs: 0,
  };
  try {
    const procs = await Promise.all(['a', 'b', 'c'].map((name) => place.start(name)));
    await until(async () => telegram.openPolls > 0, 30_000, 'the telegram account is held');
    type Kind = 'http' | 'slack' | 'telegram';
    interface Turn {
      n: number;
      kind: Kind;
      chat: string;
      acked: boolean;
      done: boolean;
      updateId?: number;
    }
    const turns: Turn[] = [];
    let inFlight = 0;
    let killedAt = 0;
    let cutAtKill: Turn[] = [];
    const slackReplies = (chat: string): string[] => slack.textsIn(chat).filter((text) => text !== THINKING);
    const telegramReplies = (chat: string): number =>
      telegram.callsOf('sendMessage').filter((call) => String(call.params['chat_id']) === chat).length;
    const replied = (turn: Turn): number =>
      turn.kind === 'slack'
        ? slackReplies(turn.chat).length
        : turn.kind === 'telegram'
          ? telegramReplies(turn.chat)
          : 0;
    const pick = (): string => {
      const live = place.live();
      return live[Math.floor(Math.random() * live.length)] as string;
    };

    const runTurn = async (turn: Turn): Promise<void> => {
      inFlight += 1;
      try {
        if (turn.kind === 'http') {
          const begin = Date.now();
          const target = pick();
          let outcome = 'no response';
          try {
            const response = await fetch(`${target}/api/v1/chat/completions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                model: 'main',
                sessionId: turn.chat,
                messages: [{ role: 'user', content: `T${turn.n}` }],
              }),
              signal: AbortSignal.timeout(options.turnTimeoutMs + 30_000),
            });
            const body = await response.text();
            outcome = String(response.status);
            if (response.status !== 200) figures.visibleErrors += 1;
            else if (!body.includes('choices')) figures.visibleErrors += 1;
          } catch (error) {
            // The instance died under the request: the client sees the error.
            outcome = String(error);
            figures.visibleErrors += 1;
          }
          const past = Date.now() - begin - options.turnTimeoutMs;
          figures.maxPastTimeoutMs = Math.max(figures.maxPastTimeoutMs, past);
          if (past > 2_000 && process.env['CHAOS_DEBUG'])
            process.stderr.write(
              `late http turn ${turn.n} (${turn.chat}) to ${target}: ${outcome} after ${Date.now() - begin} ms, ` +
                `started ${begin - started} ms into the run\n`,
            );
          figures.answered += 1;
          turn.acked = true;
        } else if (turn.kind === 'slack') {
          const delivery = await events.deliver(place.live, {
            channel: turn.chat,
            user: `U${turn.n}`,
            text: `T${turn.n}`,
            ts: `1700001000.${String(turn.n).padStart(6, '0')}`,
          });
          turn.acked = delivery.ackedAt !== undefined;
          await until(() => replied(turn) > 0, options.turnTimeoutMs + 60_000, `slack ${turn.n}`).catch(
            () => undefined,
          );
        } else {
          turn.updateId = telegram.pushMessage({ chatId: Number(turn.chat), text: `T${turn.n}` });
          turn.acked = true;
          await until(() => replied(turn) > 0, options.turnTimeoutMs + 60_000, `telegram ${turn.n}`).catch(
            () => undefined,
          );
        }
      } finally {
        turn.done = true;
        inFlight -= 1;
      }
    };

    const kinds: Kind[] = ['http', 'http', 'slack', 'telegram'];
    const running = new Set<Promise<void>>();
    const killAt = Math.floor(options.turns * 0.3);
    const redisAt = Math.floor(options.turns * 0.5);
    const databaseAt = Math.floor(options.turns * 0.7);
    let killed: Promise<void> | undefined;
    for (let n = 1; n <= options.turns; n++) {
      const kind = kinds[n % kinds.length] as Kind;
      const turn: Turn = {
        n,
        kind,
        chat: kind === 'slack' ? `D${n}` : kind === 'telegram' ? String(100_000 + n) : `chaos-${n}`,
        acked: false,
        done: false,
      };
      turns.push(turn);
      const work = runTurn(turn);
      running.add(work);
      void work.finally(() => running.delete(work));
      if (n === killAt) {
        const victim = procs[0];
        if (victim) {
          killedAt = Date.now();
          figures.killedInFlight = inFlight;
          killed = kill9(victim).then(async () => {
            // Conversations the kill cut: acknowledged to the platform and not answered yet.
            const polled = Math.max(
              0,
              ...telegram.callsOf('getUpdates').map((c) => Number(c.params['offset'] ?? 0)),
            );
            cutAtKill = turns.filter(
              (t) =>
                replied(t) === 0 &&
                ((t.kind === 'slack' && t.acked) ||
                  (t.kind === 'telegram' && (t.updateId ?? Infinity) < polled)),
            );
            void until(() => cutAtKill.every((t) => replied(t) > 0), 120_000, 'the cut conversations')
              .then(() => (figures.afterKillMs = Date.now() - killedAt))
              .catch(() => (figures.afterKillMs = -1));
            // A supervisor restarts it; the run does not depend on it (the others take over).
            await place.start('a2').catch(() => undefined);
          });
        }
      }
      const mark = (what: string): void => {
        if (process.env['CHAOS_DEBUG'])
          process.stderr.write(`${what} at turn ${n}, ${Date.now() - started} ms into the run\n`);
      };
      if (n === killAt) mark('kill');
      if (n === redisAt) mark('redis restart');
      if (n === databaseAt) mark('database cut');
      if (n === redisAt)
        void redis
          .stop()
          .then(() => sleep(2_000))
          .then(() => redis.start());
      if (n === databaseAt) {
        proxy.cutOff();
        void sleep(options.databaseOutageMs).then(() => proxy.restore());
      }
      while (running.size >= options.concurrency) await Promise.race(running);
    }
    await Promise.all(running);
    await killed;
    // Channel turns: answered once, more than once, or never.
    await until(
      () => turns.every((t) => t.kind === 'http' || !t.acked || replied(t) > 0),
      30_000,
      'the last answers',
    ).catch(() => undefined);
    // Let redeliveries and takeovers settle before counting duplicates: the model goes quiet.
    let calls = -1;
    while (calls !== model.calls) {
      calls = model.calls;
      await sleep(3_000);
    }
    for (const turn of turns) {
      if (turn.kind === 'http') continue;
      const count = replied(turn);
      if (count === 0) {
        figures.lost += 1;
        if (process.env['CHAOS_DEBUG'])
          process.stderr.write(`lost ${turn.kind} ${turn.chat} (turn ${turn.n}, acked ${turn.acked})\n`);
      } else {
        figures.answered += 1;
        if (count > 1) {
          figures.duplicates += 1;
          if (process.env['CHAOS_DEBUG'])
            process.stderr.write(
              `duplicate ${turn.kind} ${turn.chat}: ${JSON.stringify(
                turn.kind === 'slack'
                  ? slack.textsIn(turn.chat)
                  : telegram
                      .callsOf('sendMessage')
                      .filter((call) => String(call.params['chat_id']) === turn.chat)
                      .map((call) => call.params['text']),
              )}\n`,
            );
        }
        const texts = turn.kind === 'slack' ? slackReplies(turn.chat) : [];
        if (texts.some((text) => text.startsWith('Sorry'))) figures.visibleErrors += 1;
      }
    }
    // Nothing stuck: a follow-up in a sample of conversations (every one the kill cut) is answered.
    model.setRate(0);
    const sample = [...cutAtKill, ...turns.filter((t) => t.kind === 'http').slice(0, 20)];
    await Promise.all(
      sample.map(async (turn) => {
        const before = replied(turn);
        if (turn.kind === 'http') {
          const response = await fetch(`${pick()}/api/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              model: 'main',
              sessionId: turn.chat,
              messages: [{ role: 'user', content: 'again' }],
            }),
          }).catch(() => undefined);
          if (response?.status !== 200) figures.stuck += 1;
          return;
        }
        if (turn.kind === 'slack') {
          await events.deliver(place.live, {
            channel: turn.chat,
            user: 'U',
            text: 'again',
            ts: `1700009000.${String(turn.n).padStart(6, '0')}`,
          });
        } else telegram.pushMessage({ chatId: Number(turn.chat), text: 'again' });
        await until(() => replied(turn) > before, options.turnTimeoutMs + 10_000, 'follow-up').catch(() => {
          figures.stuck += 1;
        });
      }),
    );
    figures.turns = turns.length;
    figures.faultsInjected = model.faults;
    figures.durationMs = Date.now() - started;
    lag.disable();
    if (process.env['CHAOS_DEBUG'])
      process.stderr.write(
        `harness event loop delay: max ${Math.round(lag.max / 1e6)} ms, p99 ${Math.round(lag.percentile(99) / 1e6)} ms\n`,
      );
    return figures;
  } finally {
    const logs = process.env['CHAOS_LOGS'];
    if (logs) for (const proc of place.procs()) writeFileSync(`${logs}/${proc.name}.log`, proc.output());
    await place.close();
    await proxy.close();
    await database.drop().catch(() => undefined);
    await redis.close();
    await telegram.close();
    await slack.close();
    await model.close();
  }
}
