// Runs the channel adapters handed in by the composition root. Every enabled account of an enabled
// platform is either held by one long connection (kept up by the shared reconnect loop) or accepts
// the platform's webhook calls. Reconciled on every config change: an account whose credentials,
// mode or API origin changed is reconnected; policies and bindings are read live, so changing them
// interrupts nothing. Each account's connection state is kept for the API.
import { silentLogger, type Logger } from '../core/logger.ts';
import { alwaysGranted, whileHeld, type ConnectionLease } from '../cluster/lease.ts';
import type { ConfigStore } from '../config/config-store.ts';
import { PLATFORMS, type AccountConfig, type Config, type Platform } from '../config/schema.ts';
import { AppError, errorMessage, notFound } from '../core/errors.ts';
import { own } from '../core/id-schema.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import { accountProblems, parseAccount, type PlatformAccount } from './account-schema.ts';
import { apiAccount } from './api-account.ts';
import { RecentIds } from './dedupe.ts';
import { crashPoint } from '../core/fault-points.ts';
import type { DurableWork, WorkOutcome } from '../storage/durable-work.ts';
import { INBOX_KIND, apologizeGivenUp, inboxHooks, inboxId, readInboxEntry } from './inbox.ts';
import type { InboxEntry } from './inbox.ts';
import type { UsageGuard } from '../usage/guard.ts';
import { handleInbound, type InboundOutcome } from './inbound.ts';
import type { PairingStore } from './pairing-store.ts';
import { keepConnected, type BackoffOptions } from './reconnect.ts';
import type {
  AccountStatus,
  ChannelAccount,
  ChannelAdapter,
  InboundMessage,
  WebhookReply,
  WebhookRequest,
} from './types.ts';

export interface ChannelManagerOptions {
  /** Back-off of the reconnect loop (tests shorten it). */
  backoff?: BackoffOptions;
  /** Messages handled at once per account; more are dropped with a warning (default 32). */
  maxInFlight?: number;
  turnTimeoutMs?: number;
  logger?: Logger;
  /** Asked before a long connection connects: clustered, one instance holds each account. */
  lease?: ConnectionLease;
  /** Rate limits and budgets checked before a turn starts (usage/guard.ts). */
  guard?: UsageGuard;
  /** Pending DM pairing requests (dm_policy pairing). */
  pairing?: PairingStore;
  /**
   * The durable inbox: each message is recorded before the platform is acknowledged and marked
   * done when answered; a message whose instance died is answered by another (or the next start).
   */
  work?: DurableWork;
  /** Called after each inbound message is handled (tests wait on it). */
  onHandled?: (message: InboundMessage, outcome: InboundOutcome) => void;
}

interface Runner {
  fingerprint: string;
  account: ChannelAccount;
  controller: AbortController;
  done: Promise<void>;
  /** Records (durable inbox) and starts handling one message; resolves once it is recorded. */
  deliver: (message: InboundMessage) => Promise<void>;
  /** Handles a message recorded earlier (by this or a lost instance). */
  handle: (entry: InboxEntry, workId: string) => Promise<WorkOutcome>;
}

/** The fields whose change needs a new connection; the others are read live. */
function fingerprint(account: AccountConfig): string {
  const { name, description, dm_policy, group_policy, allow_from, group_require_mention, ...rest } = account;
  void [name, description, dm_policy, group_policy, allow_from, group_require_mention];
  return JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
}

const key = (platform: Platform, accountId: string): string => `${platform}/${accountId}`;

export class ChannelManager {
  private readonly adapters = new Map<Platform, ChannelAdapter>();
  private readonly runners = new Map<string, Runner>();
  private readonly statuses = new Map<string, AccountStatus>();
  /** Runners stopped by a reconfiguration that may still be finishing. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly logger: Logger;
  /** Aborts the turns of inbound messages: on stop, after the drain time. */
  private readonly turnsController = new AbortController();
  private started = false;
  private stopped = false;

  constructor(
    private readonly store: ConfigStore,
    private readonly turns: TurnRunner,
    adapters: readonly ChannelAdapter[],
    private readonly options: ChannelManagerOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    for (const adapter of adapters) this.adapters.set(adapter.platform, adapter);
    // A write or reload of the file is refused when an account has a field its platform does not
    // take, or a malformed one; a missing credential only shows on the account (it may be disabled).
    store.addCheck((config) => this.fileProblems(config));
  }

  adapterFor(platform: Platform): ChannelAdapter | undefined {
    return this.adapters.get(platform);
  }

  /** Ids of the accounts being received for, as "platform/account". */
  running(): string[] {
    return [...this.runners.keys()].sort();
  }

  /** The connection state of an account, for the API. */
  status(platform: Platform, accountId: string): AccountStatus {
    const found = this.statuses.get(key(platform, accountId));
    if (found) return found;
    const config = this.store.current;
    const account = own(config.channels[platform]?.accounts, accountId);
    const since = new Date().toISOString();
    if (platform === 'api') {
      const on = config.channels.api?.enabled !== false && account?.enabled === true;
      return { state: on ? 'connected' : 'disabled', since };
    }
    if (!this.adapters.has(platform))
      return { state: 'error', error: `platform "${platform}" is not supported`, since };
    return { state: 'disabled', since };
  }

  /** The account fields of each platform served (the api platform's and every adapter's), in list order. */
  platformAccounts(): PlatformAccount[] {
    return PLATFORMS.flatMap((platform) => {
      const fields = this.accountFields(platform);
      return fields ? [fields] : [];
    });
  }

  accountFields(platform: Platform): PlatformAccount | undefined {
    return platform === 'api' ? apiAccount : this.adapters.get(platform)?.accountFields;
  }

  /** Problems of an account's fields for its platform (none for platforms without an adapter). */
  validateAccount(platform: Platform, account: unknown): string[] {
    const fields = this.accountFields(platform);
    return fields ? accountProblems(fields, account) : [];
  }

  private fileProblems(config: Config): string[] {
    return PLATFORMS.flatMap((platform) => {
      const fields = this.accountFields(platform);
      if (!fields) return [];
      return Object.entries(config.channels[platform]?.accounts ?? {}).flatMap(([id, account]) =>
        accountProblems(fields, account, { required: false }).map(
          (problem) => `channels.${platform}.accounts.${id}.${problem}`,
        ),
      );
    });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.store.onChange((config) => this.reconcile(config));
    this.reconcile(this.store.current);
    this.options.work?.handle(
      INBOX_KIND,
      (work) => this.recover(work.id, work.payload),
      async (work) => {
        const entry = readInboxEntry(work.payload);
        const runner = entry && this.runners.get(key(entry.platform, entry.accountId));
        await apologizeGivenUp(
          entry,
          entry && this.adapters.get(entry.platform),
          runner?.account,
          this.logger,
        );
      },
    );
  }

  /** A message recorded in the durable inbox by an instance that did not finish it. */
  private async recover(id: string, payload: unknown): Promise<WorkOutcome> {
    const entry = readInboxEntry(payload);
    if (!entry) return 'failed';
    if (this.stopped) return 'released';
    const runner = this.runners.get(key(entry.platform, entry.accountId));
    if (!runner) {
      this.logger.warn(
        { platform: entry.platform, accountId: entry.accountId },
        'a recorded channel message of an account that is not running was dropped',
      );
      return 'failed';
    }
    return runner.handle(entry, id);
  }

  /** Stops receiving: long connections close and webhooks answer 404; turns in flight go on. */
  drain(): void {
    this.stopped = true;
    const runners = [...this.runners.values()];
    this.runners.clear();
    for (const runner of runners) {
      runner.controller.abort(new Error('channels stopped'));
      this.retiring.add(runner.done);
    }
  }

  /**
   * Stops receiving, gives the turns in flight `graceMs` to finish, then aborts them (a recorded
   * message is handed back to the durable inbox: another instance or the next start answers it).
   */
  async stop(graceMs = 0): Promise<void> {
    this.drain();
    const settled = Promise.all([...this.retiring]);
    if (graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    this.turnsController.abort(new Error('channels stopped'));
    await settled;
  }

  /** One platform request to POST /webhooks/{platform}/{accountId}. */
  async handleWebhook(platform: Platform, accountId: string, request: WebhookRequest): Promise<WebhookReply> {
    // Stopping: the platform delivers again, to another instance or after the restart.
    if (this.stopped) return { status: 503, body: { error: 'the server is stopping; deliver it again' } };
    const adapter = this.adapters.get(platform);
    const runner = this.runners.get(key(platform, accountId));
    if (!adapter?.handleWebhook || !runner || adapter.inboundStyle(runner.account.config) !== 'webhook') {
      throw notFound(`no webhook for account "${accountId}" of platform "${platform}"`);
    }
    // The platform is acknowledged (the answer sent) only once what it delivered is recorded.
    const records: Array<Promise<void>> = [];
    const reply = await adapter.handleWebhook(runner.account, request, (message) => {
      records.push(runner.deliver(message));
    });
    const failed = (await Promise.allSettled(records)).some((result) => result.status === 'rejected');
    if (failed) {
      return { status: 503, body: { error: 'the message could not be recorded; deliver it again' } };
    }
    return reply;
  }

  private setStatus(id: string, status: AccountStatus): void {
    const previous = this.statuses.get(id);
    if (
      previous?.state === status.state &&
      previous.error === status.error &&
      previous.instance === status.instance
    )
      return;
    this.statuses.set(id, status);
  }

  private reconcile(config: Config): void {
    if (this.stopped) return;
    const wanted = new Map<string, ChannelAccount>();
    for (const platform of PLATFORMS) {
      const adapter = this.adapters.get(platform);
      if (!adapter) continue;
      const section = config.channels[platform];
      for (const [id, account] of Object.entries(section?.accounts ?? {})) {
        const where = key(platform, id);
        if (!section?.enabled || !account.enabled) {
          this.setStatus(where, { state: 'disabled', since: new Date().toISOString() });
          continue;
        }
        const parsed = parseAccount(adapter.accountFields, account);
        if (!parsed.config) {
          this.setStatus(where, {
            state: 'error',
            error: parsed.problems.join('; '),
            since: new Date().toISOString(),
          });
          continue;
        }
        wanted.set(where, { platform, id, config: parsed.config });
      }
    }
    for (const [id, runner] of this.runners) {
      const next = wanted.get(id);
      if (!next || fingerprint(next.config) !== runner.fingerprint) {
        runner.controller.abort(new Error('channel account reconfigured'));
        this.runners.delete(id);
        this.retiring.add(runner.done);
        void runner.done.finally(() => this.retiring.delete(runner.done));
      } else runner.account = next;
    }
    for (const id of this.statuses.keys()) {
      const [platform, accountId] = id.split('/') as [Platform, string];
      if (!own(config.channels[platform]?.accounts, accountId)) this.statuses.delete(id);
    }
    for (const [id, account] of wanted) {
      if (!this.runners.has(id)) this.runners.set(id, this.run(id, account));
    }
  }

  private run(id: string, account: ChannelAccount): Runner {
    const adapter = this.adapters.get(account.platform) as ChannelAdapter;
    const controller = new AbortController();
    const inFlight = new Set<Promise<void>>();
    const recent = new RecentIds();
    const limit = this.options.maxInFlight ?? 32;
    const where = { platform: account.platform, accountId: account.id };
    const work = this.options.work;
    const turnSignal = this.turnsController.signal;
    /** Runs the turn of one message; says how it ended for the durable inbox (recorded as `workId`). */
    const start = (entry: InboxEntry, workId?: string): Promise<WorkOutcome> => {
      const { message } = entry;
      const durable = work && workId !== undefined ? inboxHooks(work, workId, entry) : {};
      const handled = handleInbound(message, {
        ...durable,
        config: () => this.store.current,
        turns: this.turns,
        adapter,
        account: runner.account,
        logger: this.logger,
        signal: turnSignal,
        ...(this.options.turnTimeoutMs ? { turnTimeoutMs: this.options.turnTimeoutMs } : {}),
        ...(this.options.guard ? { guard: this.options.guard } : {}),
        pairing: this.options.pairing,
      })
        .then((outcome): WorkOutcome => {
          this.options.onHandled?.(message, outcome);
          // Stopped before it ended: handed back, to be answered by another instance or the next start.
          if (outcome === 'failed' && turnSignal.aborted) return 'released';
          if (outcome === 'taken') return 'taken';
          return outcome === 'failed' ? 'failed' : 'done';
        })
        .catch((error: unknown): WorkOutcome => {
          this.logger.warn({ ...where, err: errorMessage(error) }, 'channel message failed');
          return 'failed';
        });
      const tracked = handled.then(() => undefined);
      inFlight.add(tracked);
      void tracked.finally(() => inFlight.delete(tracked));
      return handled;
    };
    const runner: Runner = {
      fingerprint: fingerprint(account.config),
      account,
      controller,
      done: Promise.resolve(),
      deliver: async (message) => {
        if (controller.signal.aborted) return;
        // Message ids are unique per chat on some platforms (Telegram), so the chat is part of the key.
        const seen =
          message.messageId === undefined ? undefined : `${message.chatId}\u0000${message.messageId}`;
        if (seen !== undefined && recent.repeat(seen)) {
          this.logger.info({ ...where, messageId: message.messageId }, 'redelivered channel message dropped');
          return;
        }
        const entry: InboxEntry = { platform: account.platform, accountId: account.id, message };
        if (!work) {
          if (inFlight.size >= limit) {
            this.logger.warn(
              { ...where, chatId: message.chatId },
              'too many channel messages in flight; dropped one',
            );
            return;
          }
          void start(entry);
          return;
        }
        const id = inboxId(message);
        crashPoint('inbox-before-record', message.text);
        let recorded: boolean;
        try {
          recorded = await work.record(INBOX_KIND, id, entry);
        } catch (error) {
          // Not acknowledged: the platform delivers it again, and then it must not look like a repeat.
          if (seen !== undefined) recent.forget(seen);
          this.logger.warn({ ...where, err: errorMessage(error) }, 'could not record a channel message');
          throw error;
        }
        if (!recorded) {
          this.logger.info({ ...where, messageId: message.messageId }, 'redelivered channel message dropped');
          return;
        }
        crashPoint('inbox-after-record', message.text);
        // No capacity now: handed back, and taken up by whichever instance has room first.
        if (inFlight.size >= limit) {
          void work.release(id, true);
          return;
        }
        void start(entry, id).then(async (outcome) => {
          if (outcome === 'done') crashPoint('inbox-after-send', message.text);
          if (outcome === 'done' || outcome === 'failed') await work.finish(id, outcome);
          else if (outcome !== 'taken') await work.release(id);
        });
      },
      // The durable inbox marks the work finished (or handed back) by the outcome.
      handle: async (entry, workId) => {
        if (turnSignal.aborted) return 'released';
        if (inFlight.size >= limit) return 'busy';
        return start(entry, workId);
      },
    };
    this.logger.info(where, 'channel account started');
    let receiving: Promise<void>;
    if (adapter.inboundStyle(account.config) === 'webhook') {
      // Ready as soon as it is configured: the platform calls us.
      this.setStatus(id, { state: 'connected', since: new Date().toISOString() });
      receiving = new Promise((resolve) =>
        controller.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    } else if (adapter.connect) {
      const connect = adapter.connect.bind(adapter);
      const lease = this.options.lease ?? alwaysGranted;
      const instance = lease.instanceId === undefined ? {} : { instance: lease.instanceId };
      // Connected only while this instance holds the account's lease (always, for a single instance).
      receiving = whileHeld(
        lease,
        `channel:${id}`,
        controller.signal,
        (signal, grant) =>
          keepConnected({
            ...this.options.backoff,
            signal,
            connect: (link) => connect(runner.account, link),
            // Errors are logged where they happen; a platform that can wait for the record uses `record`.
            deliver: (message) => void runner.deliver(message).catch(() => undefined),
            record: runner.deliver,
            onStatus: (status) => {
              if (signal.aborted) return;
              this.setStatus(id, { ...status, ...instance });
              grant.report(status);
            },
            onRetry: (failures, delayMs, error) =>
              this.logger.warn(
                { ...where, failures, delayMs, err: error },
                'channel connection lost; reconnecting',
              ),
          }),
        (holder) => {
          if (controller.signal.aborted) return;
          const status = holder.status ?? { state: 'connecting', since: new Date().toISOString() };
          this.setStatus(id, { ...status, instance: holder.instance });
        },
      );
    } else {
      const error = new AppError('not-implemented', `platform "${account.platform}" cannot receive messages`);
      this.setStatus(id, { state: 'error', error: error.message, since: new Date().toISOString() });
      receiving = Promise.resolve();
    }
    runner.done = receiving.then(async () => {
      await Promise.all([...inFlight]);
      this.logger.info(where, 'channel account stopped');
    });
    return runner;
  }
}
