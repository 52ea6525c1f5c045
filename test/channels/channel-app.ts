// The set-up every platform's end-to-end test shares: an app whose model is the fake upstream, one
// enabled account `bot1` on the platform, short back-off, every handled message and log line kept.
import type { InboundOutcome } from '../../src/channels/inbound.ts';
import type { Logger } from '../../src/core/logger.ts';
import type { ChannelAdapter, InboundMessage } from '../../src/channels/types.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

export interface ChannelApp {
  t: TestApp;
  handled: Array<{ message: InboundMessage; outcome: InboundOutcome }>;
  logs: string[];
  /** Writes into `logs`; give it to the adapter under test. */
  logger: Logger;
}

export interface ChannelAppOptions {
  platform: string;
  /** The fields of account `bot1`. */
  account: Record<string, unknown>;
  /** The config's `models` section (usually the fake upstream's). */
  models: Record<string, unknown>;
  /** The adapter under test, built on the logger that writes into `logs` (default: the built-in one). */
  adapter?: (logger: Logger) => ChannelAdapter;
  backoff?: { baseMs: number; maxMs: number };
}

export async function createChannelApp(options: ChannelAppOptions): Promise<ChannelApp> {
  const handled: ChannelApp['handled'] = [];
  const logs: string[] = [];
  const log = (object: object, message: string): void =>
    void logs.push(`${message} ${JSON.stringify(object)}`);
  const logger = { info: log, warn: log };
  const t = await createTestApp({
    config: {
      models: options.models,
      channels: { [options.platform]: { enabled: true, accounts: { bot1: options.account } } },
    },
    services: {
      logger,
      channels: {
        backoff: options.backoff ?? { baseMs: 20, maxMs: 100 },
        onHandled: (message, outcome) => void handled.push({ message, outcome }),
        ...(options.adapter ? { adapters: [options.adapter(logger)] } : {}),
      },
    },
  });
  return { t, handled, logs, logger };
}

/** Polls `check` until it holds, failing after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 8000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
