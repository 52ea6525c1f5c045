// Runs the channel adapters: one receiving loop per enabled account of an enabled platform that has
// an adapter (only telegram for now). Started with the services, reconciled on every config change
// (an account whose credentials or API origin changed is restarted; policies and bindings are read
// live, so changing them interrupts nothing), stopped on close.
import type { ConfigStore } from '../config/config-store.ts';
import { PLATFORMS, type AccountConfig, type Config, type Platform } from '../config/schema.ts';
import { errorMessage } from '../core/errors.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import { handleInbound, type InboundOutcome } from './inbound.ts';
import { TelegramAdapter, type TelegramOptions } from './telegram.ts';
import type { ChannelAccount, ChannelAdapter, ChannelLogger, InboundMessage } from './types.ts';

export interface ChannelManagerOptions {
  telegram?: Omit<TelegramOptions, 'logger'>;
  /** Adapters to use instead of the built-in ones (tests). */
  adapters?: Partial<Record<Platform, ChannelAdapter>>;
  /** Messages handled at once per account; more are dropped with a warning (default 32). */
  maxInFlight?: number;
  turnTimeoutMs?: number;
  logger?: ChannelLogger;
  /** Called after each inbound message is handled (tests wait on it). */
  onHandled?: (message: InboundMessage, outcome: InboundOutcome) => void;
}

interface Runner {
  fingerprint: string;
  controller: AbortController;
  done: Promise<void>;
}

function fingerprint(account: AccountConfig): string {
  return JSON.stringify([
    account.app_id ?? '',
    account.app_secret ?? '',
    account.api_key ?? '',
    account.api_base ?? '',
  ]);
}

export class ChannelManager {
  private readonly adapters = new Map<Platform, ChannelAdapter>();
  private readonly runners = new Map<string, Runner>();
  /** Runners stopped by a reconfiguration that may still be finishing. */
  private readonly retiring = new Set<Promise<void>>();
  private logger: ChannelLogger | undefined;
  private started = false;
  private stopped = false;

  constructor(
    private readonly store: ConfigStore,
    private readonly turns: TurnRunner,
    private readonly options: ChannelManagerOptions = {},
  ) {
    this.logger = options.logger;
    this.adapters.set('telegram', new TelegramAdapter({ ...options.telegram, logger: () => this.logger }));
    for (const [platform, adapter] of Object.entries(options.adapters ?? {})) {
      if (adapter) this.adapters.set(platform as Platform, adapter);
    }
  }

  /** Sets the logger used from now on (the server's, once it exists). */
  useLogger(logger: ChannelLogger): void {
    this.logger = logger;
  }

  adapterFor(platform: Platform): ChannelAdapter | undefined {
    return this.adapters.get(platform);
  }

  /** Ids of the accounts being received for, as "platform/account". */
  running(): string[] {
    return [...this.runners.keys()].sort();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.store.onChange((config) => this.reconcile(config));
    this.reconcile(this.store.current);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const runners = [...this.runners.values()];
    this.runners.clear();
    for (const runner of runners) runner.controller.abort(new Error('channels stopped'));
    await Promise.all([...runners.map((runner) => runner.done), ...this.retiring]);
  }

  private reconcile(config: Config): void {
    if (this.stopped) return;
    const wanted = new Map<string, ChannelAccount>();
    for (const platform of PLATFORMS) {
      const section = config.channels[platform];
      if (!section?.enabled || !this.adapters.has(platform)) continue;
      for (const [id, account] of Object.entries(section.accounts)) {
        if (account.enabled && account.app_secret)
          wanted.set(`${platform}/${id}`, { platform, id, config: account });
      }
    }
    for (const [key, runner] of this.runners) {
      const next = wanted.get(key);
      if (!next || fingerprint(next.config) !== runner.fingerprint) {
        runner.controller.abort(new Error('channel account reconfigured'));
        this.runners.delete(key);
        this.retiring.add(runner.done);
        void runner.done.finally(() => this.retiring.delete(runner.done));
      }
    }
    for (const [key, account] of wanted) {
      if (!this.runners.has(key)) this.runners.set(key, this.run(account));
    }
  }

  private run(account: ChannelAccount): Runner {
    const adapter = this.adapters.get(account.platform);
    const controller = new AbortController();
    const inFlight = new Set<Promise<void>>();
    const limit = this.options.maxInFlight ?? 32;
    const where = { platform: account.platform, accountId: account.id };
    const deliver = (message: InboundMessage): void => {
      if (controller.signal.aborted || !adapter) return;
      if (inFlight.size >= limit) {
        this.logger?.warn(
          { ...where, chatId: message.chatId },
          'too many channel messages in flight; dropped one',
        );
        return;
      }
      const handled = handleInbound(message, {
        config: () => this.store.current,
        turns: this.turns,
        adapter,
        account,
        logger: this.logger,
        signal: controller.signal,
        ...(this.options.turnTimeoutMs ? { turnTimeoutMs: this.options.turnTimeoutMs } : {}),
      })
        .then((outcome) => this.options.onHandled?.(message, outcome))
        .catch((error: unknown) =>
          this.logger?.warn({ ...where, err: errorMessage(error) }, 'channel message failed'),
        );
      inFlight.add(handled);
      void handled.finally(() => inFlight.delete(handled));
    };
    this.logger?.info(where, 'channel account started');
    const loop = adapter
      ? adapter.start(account, deliver, controller.signal).catch((error: unknown) => {
          this.logger?.warn({ ...where, err: errorMessage(error) }, 'channel receiving stopped on an error');
        })
      : Promise.resolve();
    const done = loop.then(async () => {
      await Promise.all([...inFlight]);
      this.logger?.info(where, 'channel account stopped');
    });
    return { fingerprint: fingerprint(account.config), controller, done };
  }
}
