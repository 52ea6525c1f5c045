// Socket Mode through @slack/bolt: an App with a SocketModeReceiver whose client gets its WebSocket
// URL from apps.connections.open (app-level token, xapp-) and speaks Slack's envelopes (hello,
// events_api acknowledged by envelope_id, disconnect). Bolt's own reconnecting is off: when the
// connection ends, connect() returns and the manager's reconnect loop opens a new one, so the state
// and back-off of every platform are the same. The bot token (xoxb-) is checked with auth.test
// before connecting, so a wrong one shows as the account's error.
import type { Logger } from '../../core/logger.ts';
import type { ChannelAccount, ConnectionLink } from '../types.ts';
import { apiUrlOf, toSlackError } from './slack-api.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import { quietSlackLogger, SLACK_TOKENS } from './slack-logger.ts';
import type { SlackAccount } from './account.ts';

export interface SocketModeOptions {
  logger: Logger | undefined;
  /** Each message or app_mention event, with the bot's user id (from auth.test). */
  onEvent(
    account: ChannelAccount<SlackAccount>,
    event: unknown,
    botUserId: string | undefined,
    link: ConnectionLink,
  ): void;
  /** Time to wait for the close handshake when stopping, in ms (default 5000). */
  closeTimeoutMs?: number;
}

/** The part of the Socket Mode client's event emitter used here. */
interface SocketClient {
  listeners(event: 'ws_message'): Array<(...args: never[]) => unknown>;
  removeAllListeners(event: 'ws_message'): unknown;
  on(event: 'ws_message', listener: (...args: unknown[]) => void): unknown;
}

/**
 * The Socket Mode client reads each frame in an async listener that nobody awaits, and reads
 * `payload.event.type` of an events_api envelope unchecked: a frame without a payload (or `null`)
 * would be an unhandled rejection, which ends the process. Its listener is wrapped so that such a
 * frame is logged and dropped, and the connection goes on.
 */
export function guardEnvelopes(
  client: SocketClient,
  logger: Logger | undefined,
  accountId: string,
  secrets: Array<string | undefined>,
): void {
  const readers = client.listeners('ws_message') as Array<(...args: unknown[]) => unknown>;
  client.removeAllListeners('ws_message');
  client.on('ws_message', (...args: unknown[]) => {
    for (const read of readers) {
      try {
        void Promise.resolve(read(...args)).catch((error: unknown) => dropped(error));
      } catch (error) {
        dropped(error);
      }
    }
  });
  function dropped(error: unknown): void {
    const text = error instanceof Error ? error.message : 'unreadable frame';
    logger?.warn(
      { platform: 'slack', accountId, err: scrubSecrets(text, secrets, [SLACK_TOKENS]).slice(0, 200) },
      'slack: a malformed Socket Mode frame was dropped',
    );
  }
}

export async function connectSocketMode(
  account: ChannelAccount<SlackAccount>,
  link: ConnectionLink,
  options: SocketModeOptions,
): Promise<void> {
  const { App, SocketModeReceiver } = await import('@slack/bolt');
  const appToken = account.config.app_token;
  const botToken = account.config.app_secret;
  if (!appToken || !botToken)
    throw new Error('slack: Socket Mode needs app_secret (bot token) and app_token');
  const logger = quietSlackLogger(options.logger);
  const clientOptions = {
    slackApiUrl: apiUrlOf(account.config.api_base),
    // One try per connection: the manager's loop retries with back-off.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 30_000,
    allowAbsoluteUrls: false,
    logger,
  };
  const receiver = new SocketModeReceiver({
    appToken,
    logger,
    autoReconnectEnabled: false,
    installerOptions: { clientOptions },
  });
  const app = new App({
    token: botToken,
    receiver,
    logger,
    clientOptions,
    convoStore: false,
    deferInitialization: true,
  });
  for (const name of ['message', 'app_mention'] as const) {
    app.event(name, ({ event, context }) => {
      options.onEvent(account, event, context.botUserId, link);
      return Promise.resolve();
    });
  }
  app.error((error) => {
    options.logger?.warn(
      {
        platform: 'slack',
        accountId: account.id,
        err: scrubSecrets(error.message, [botToken, appToken], [SLACK_TOKENS]),
      },
      'slack event failed',
    );
    return Promise.resolve();
  });
  if (link.signal.aborted) return;
  // auth.test with the bot token: a wrong token fails here with invalid_auth.
  await app.init().catch((error: unknown) => {
    throw toSlackError('auth.test (the bot token)', error, [botToken, appToken]);
  });
  const client = receiver.client;
  guardEnvelopes(client, options.logger, account.id, [botToken, appToken]);
  let closed = false;
  const ended = new Promise<void>((resolve) =>
    client.once('disconnected', () => {
      closed = true;
      resolve();
    }),
  );
  const stop = (): void => void client.disconnect().catch(() => undefined);
  link.signal.addEventListener('abort', stop, { once: true });
  try {
    await Promise.race([
      app.start().catch((error: unknown) => {
        throw error === undefined
          ? new Error('slack: the Socket Mode connection closed before hello')
          : toSlackError('apps.connections.open (the app token)', error, [botToken, appToken]);
      }),
      ended.then(() => {
        throw new Error('slack: the Socket Mode connection closed before hello');
      }),
    ]);
    if (link.signal.aborted) return;
    link.connected();
    await ended;
  } finally {
    link.signal.removeEventListener('abort', stop);
    if (!closed) {
      client.disconnect().catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        ended,
        new Promise((resolve) => (timer = setTimeout(resolve, options.closeTimeoutMs ?? 5000))),
      ]);
      clearTimeout(timer);
    }
  }
}
