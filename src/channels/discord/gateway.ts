// One gateway connection of a Discord account, through @discordjs/ws (the gateway client of
// discord.js): GET /gateway/bot for the URL, HELLO, IDENTIFY with the intents, heartbeats and their
// ACKs, READY, and a RESUME on the next connection after a drop. The shard never reconnects by
// itself: when the connection ends it hands over to the channel manager's reconnect loop (back-off,
// account status), keeping the session so the next connection resumes it where Discord allows.
import { Collection } from '@discordjs/collection';
import { DiscordAPIError, HTTPError, type REST } from '@discordjs/rest';
import {
  CloseCodes,
  managerToFetchingStrategyOptions,
  SimpleContextFetchingStrategy,
  WebSocketManager,
  WebSocketShard,
  WebSocketShardDestroyRecovery,
  WebSocketShardEvents,
  type IShardingStrategy,
  type SessionInfo,
  type WebSocketShardDestroyOptions,
  type WebSocketShardStatus,
} from '@discordjs/ws';
import {
  GatewayCloseCodes,
  GatewayIntentBits,
  type APIGatewayBotInfo,
  type GatewayDispatchPayload,
  type GatewayReadyDispatchData,
  type GatewaySendPayload,
} from 'discord-api-types/v10';
import { sleep } from '../../core/async.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import { describeFailure } from './discord-rest.ts';
import { PlatformError } from '../platform-http.ts';

/** DMs, guild messages, and their text (Message Content is privileged: enabled in the developer portal). */
export const DISCORD_INTENTS =
  GatewayIntentBits.Guilds |
  GatewayIntentBits.GuildMessages |
  GatewayIntentBits.DirectMessages |
  GatewayIntentBits.MessageContent;

/** Why Discord closed for good, in words a user can act on. */
const FATAL_CLOSES: Partial<Record<number, string>> = {
  [GatewayCloseCodes.AuthenticationFailed]: 'the bot token was refused (authentication failed)',
  [GatewayCloseCodes.DisallowedIntents]:
    'the Message Content intent is not enabled for this bot: turn it on in the Discord developer portal (Bot, Privileged Gateway Intents)',
  [GatewayCloseCodes.InvalidIntents]: 'the gateway refused the intents',
  [GatewayCloseCodes.InvalidShard]: 'the gateway refused the shard',
  [GatewayCloseCodes.ShardingRequired]:
    'the bot is in too many guilds for one connection (sharding required)',
  [GatewayCloseCodes.InvalidAPIVersion]: 'the gateway refused API version 10',
};

export interface GatewaySession {
  /** Where the last connection stopped, for a RESUME; undefined to IDENTIFY. */
  info?: SessionInfo | undefined;
}

export interface GatewayHandlers {
  ready(data: GatewayReadyDispatchData): void;
  resumed(): void;
  dispatch(payload: GatewayDispatchPayload): void;
  debug?(message: string): void;
  /** A handler above threw (a payload with fields missing): the event is dropped, the connection goes on. */
  failed?(error: unknown): void;
}

interface EndHooks {
  /** Before the shard lets go of its session: whether it may be resumed. */
  keep(resume: boolean): void;
  /** After the connection is closed. */
  ended(code: number | undefined): void;
}

/** A shard that ends instead of reconnecting by itself, unless it is being stopped by us. */
class HandingOverShard extends WebSocketShard {
  stopping = false;

  constructor(
    strategy: SimpleContextFetchingStrategy,
    id: number,
    private readonly hooks: EndHooks,
  ) {
    super(strategy, id);
  }

  override async destroy(options: WebSocketShardDestroyOptions = {}): Promise<void> {
    if (this.stopping) return super.destroy(options);
    const { recover, ...rest } = options;
    const resume = recover === WebSocketShardDestroyRecovery.Resume;
    this.hooks.keep(resume);
    // A resumable session is closed with a non-1000 code: Discord ends a session closed with 1000.
    await super.destroy({ ...rest, code: rest.code ?? (resume ? CloseCodes.Resuming : CloseCodes.Normal) });
    this.hooks.ended(options.code);
  }
}

class HandingOverStrategy implements IShardingStrategy {
  private shard: HandingOverShard | undefined;

  constructor(
    private readonly manager: WebSocketManager,
    private readonly hooks: EndHooks,
  ) {}

  async spawn(shardIds: number[]): Promise<void> {
    const options = await managerToFetchingStrategyOptions(this.manager);
    const shardId = shardIds[0] ?? 0;
    const shard = new HandingOverShard(
      new SimpleContextFetchingStrategy(this.manager, options),
      shardId,
      this.hooks,
    );
    for (const event of Object.values(WebSocketShardEvents)) {
      shard.on(event, (payload: object) => this.manager.emit(event, { ...payload, shardId } as never));
    }
    this.shard = shard;
  }

  async connect(): Promise<void> {
    await this.shard?.connect();
  }

  async destroy(options?: Omit<WebSocketShardDestroyOptions, 'recover'>): Promise<void> {
    const shard = this.shard;
    this.shard = undefined;
    if (!shard) return;
    shard.stopping = true;
    await shard.destroy(options);
  }

  async send(_shardId: number, payload: GatewaySendPayload): Promise<void> {
    await this.shard?.send(payload);
  }

  async fetchStatus(): Promise<Awaited<ReturnType<IShardingStrategy['fetchStatus']>>> {
    const statuses = new Collection<number, WebSocketShardStatus>(
      this.shard ? [[this.shard.id, this.shard.status]] : [],
    );
    // The same class as @discordjs/ws's own copy of @discordjs/collection.
    return statuses as unknown as Awaited<ReturnType<IShardingStrategy['fetchStatus']>>;
  }
}

/** Checks that Discord (or api_base) names a WebSocket URL for the gateway. */
class CheckedManager extends WebSocketManager {
  override async fetchGatewayInformation(force?: boolean): Promise<APIGatewayBotInfo> {
    const info = await super.fetchGatewayInformation(force);
    let protocol = '';
    try {
      protocol = new URL(String(info.url)).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'wss:' && protocol !== 'ws:') {
      throw new PlatformError('discord GET /gateway/bot: the gateway URL is not a ws:// or wss:// URL');
    }
    return info;
  }
}

/**
 * Connects, receives until `signal` aborts (resolves) or the connection ends (resolves: the
 * platform closed it; throws: Discord refused it for good, or the first connection failed).
 */
export async function runGateway(
  token: string,
  rest: REST,
  session: GatewaySession,
  handlers: GatewayHandlers,
  signal: AbortSignal,
): Promise<void> {
  let keepSession = true;
  let finish: (code: number | undefined) => void = () => undefined;
  const ended = new Promise<number | undefined>((resolve) => {
    finish = resolve;
  });
  const hooks: EndHooks = {
    keep: (resume) => {
      keepSession = resume;
    },
    ended: (code) => finish(code),
  };
  let failure: Error | undefined;
  const manager = new CheckedManager({
    token,
    intents: DISCORD_INTENTS,
    rest,
    shardCount: 1,
    shardIds: [0],
    // Each account keeps its own session (the default store is shared by the whole process).
    retrieveSessionInfo: () => session.info ?? null,
    updateSessionInfo: (_shardId, info) => {
      if (info) session.info = info;
      else if (!keepSession) session.info = undefined;
    },
    buildStrategy: (owner) => new HandingOverStrategy(owner, hooks),
    helloTimeout: 20_000,
  });
  // The shard emits from an async message reader nobody awaits: a throw here would be an unhandled
  // rejection, which ends the process.
  const guarded =
    <T extends unknown[]>(handle: (...args: T) => void) =>
    (...args: T): void => {
      try {
        handle(...args);
      } catch (error) {
        handlers.failed?.(error);
      }
    };
  manager.on(
    WebSocketShardEvents.Ready,
    guarded(({ data }) => handlers.ready(data)),
  );
  manager.on(
    WebSocketShardEvents.Resumed,
    guarded(() => handlers.resumed()),
  );
  manager.on(
    WebSocketShardEvents.Dispatch,
    guarded(({ data }) => handlers.dispatch(data)),
  );
  manager.on(WebSocketShardEvents.Error, ({ error }) => {
    failure = error;
  });
  if (handlers.debug) manager.on(WebSocketShardEvents.Debug, ({ message }) => handlers.debug?.(message));
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const first = await Promise.race([manager.connect().then(() => 'up' as const), ended, aborted]);
    const code = first === 'up' ? await Promise.race([ended, aborted]) : first;
    if (code === 'aborted') return;
    const fatal = code === undefined ? undefined : FATAL_CLOSES[code];
    if (fatal) throw new PlatformError(`discord gateway closed (${code}): ${fatal}`);
    if (failure && first !== 'up') throw new PlatformError(`discord gateway: ${failure.message}`);
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    if (error instanceof DiscordAPIError || error instanceof HTTPError) {
      throw describeFailure('GET /gateway/bot', error, token);
    }
    // The shard reports a refusal before it has closed: wait for the close code that explains it.
    const code = await Promise.race([ended, sleep(1000).then(() => undefined)]);
    const known = code === undefined ? undefined : FATAL_CLOSES[code];
    if (known) throw new PlatformError(`discord gateway closed (${code}): ${known}`);
    const message = error instanceof Error ? error.message : 'connection failed';
    throw new PlatformError(`discord gateway: ${scrubSecrets(message, [token]).slice(0, 200)}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
    try {
      await manager.destroy({ code: CloseCodes.Normal, reason: 'stopped' });
    } catch {
      // the connection is gone either way
    }
    if (signal.aborted) session.info = undefined;
  }
}
