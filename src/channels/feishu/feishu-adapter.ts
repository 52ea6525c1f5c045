// Feishu over the long connection (platform `feishu`): the official SDK's WSClient receives events
// on a WebSocket the app opens itself, so no public URL is needed. The SDK is pointed at the
// account's api_base (endpoint discovery returns the socket's URL) and makes its HTTP call through
// our fetch, without redirects. Its own reconnecting is off: connect() ends when the socket closes
// and the manager's loop reconnects with back-off, so the account's status is always the truth.
import type { HttpInstance, HttpRequestOptions } from '@larksuiteoapi/node-sdk';
import { errorMessage } from '../../core/errors.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import type { ChannelAccount, ConnectionLink, InboundStyle } from '../types.ts';
import { FeishuAdapterBase, type FeishuOptions } from './feishu-adapter-base.ts';
import { credentialsOf } from './feishu-api.ts';
import { PlatformError, platformFetch } from '../platform-http.ts';
import { feishuAccount, type FeishuAccount } from './account.ts';

const MAX_ENDPOINT_REPLY_BYTES = 64 * 1024;

export interface FeishuAdapterOptions extends FeishuOptions {
  /** How often the SDK client's state is read to notice a closed socket, in ms (default 1000). */
  connectionCheckMs?: number;
  /** Longest wait for the socket to open, in ms (default 60000). */
  connectTimeoutMs?: number;
  /** Seconds without any frame after a ping before the socket counts as dead (default 30). */
  pingTimeoutSeconds?: number;
}

/** The one HTTP call the WSClient makes (endpoint discovery), through fetch with our limits. */
function endpointHttp(timeoutMs: number): HttpInstance {
  const request = async (options: HttpRequestOptions<unknown>): Promise<unknown> => {
    const response = await platformFetch({
      what: 'feishu endpoint discovery',
      url: options.url ?? '',
      method: (options.method ?? 'GET').toUpperCase() as 'GET' | 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      ...(options.data !== undefined ? { json: options.data } : {}),
      timeoutMs: options.timeout ?? timeoutMs,
      maxBytes: MAX_ENDPOINT_REPLY_BYTES,
    });
    if (!response.ok) throw new Error(`endpoint discovery answered status ${response.status}`);
    const text = response.body.toString('utf8');
    const answer = JSON.parse(text) as Record<string, unknown>;
    // The SDK destructures data.URL even from a failure; an answer without data must not hide its code.
    return { ...answer, data: answer['data'] ?? {} };
  };
  const unsupported = (): Promise<never> => Promise.reject(new Error('not used by the long connection'));
  return {
    request: request as HttpInstance['request'],
    get: unsupported,
    delete: unsupported,
    head: unsupported,
    options: unsupported,
    post: unsupported,
    put: unsupported,
    patch: unsupported,
  };
}

export class FeishuAdapter extends FeishuAdapterBase {
  readonly platform = 'feishu' as const;
  readonly accountFields = feishuAccount;

  constructor(protected override readonly options: FeishuAdapterOptions = {}) {
    super(options);
  }

  inboundStyle(): InboundStyle {
    return 'long-connection';
  }

  /**
   * Checks the credentials and learns the bot's open_id (group mentions are compared with it), then
   * holds one WebSocket until it closes or the link's signal aborts.
   */
  async connect(account: ChannelAccount<FeishuAccount>, link: ConnectionLink): Promise<void> {
    const credentials = credentialsOf(account);
    await this.botOpenId(credentials, link.signal, true);
    if (link.signal.aborted) return;
    // Loaded on first use: the SDK is large and only long-connection accounts need it.
    const sdk = await import('@larksuiteoapi/node-sdk');
    const secrets = [credentials.appSecret, account.config.encrypt_key, account.config.verification_token];
    // The SDK's warnings and errors go to our log, scrubbed; the last one also explains a failure.
    let lastSdkError: string | undefined;
    const report = (...parts: unknown[]): void => {
      const text = scrubSecrets(
        parts
          .flat()
          .filter((part) => typeof part === 'string')
          .join(' '),
        secrets,
      );
      lastSdkError = text.slice(0, 300);
      this.log('warn', account, { sdk: lastSdkError }, 'feishu sdk reported a problem');
    };
    const ignore = (): void => undefined;
    const logger = { error: report, warn: report, info: ignore, debug: ignore, trace: ignore };
    await new Promise<void>((resolve, reject) => {
      let ready = false;
      let settled = false;
      const client = new sdk.WSClient({
        appId: credentials.appId,
        appSecret: credentials.appSecret,
        domain: credentials.apiBase,
        autoReconnect: false,
        httpInstance: endpointHttp(this.options.requestTimeoutMs ?? 30_000),
        logger,
        loggerLevel: sdk.LoggerLevel.warn,
        handshakeTimeoutMs: 15_000,
        wsConfig: { pingTimeout: this.options.pingTimeoutSeconds ?? 30 },
        onReady: () => {
          ready = true;
          clearTimeout(deadline);
          link.connected();
        },
        onError: (error) => fail(errorMessage(error)),
      });
      // The SDK reports no close when it does not reconnect: its state leaving `connected` is the close.
      const watch = setInterval(() => {
        if (ready && client.getConnectionStatus().state !== 'connected') finish();
      }, this.options.connectionCheckMs ?? 1000);
      const deadline = setTimeout(
        () => fail('the connection did not open in time'),
        this.options.connectTimeoutMs ?? 60_000,
      );
      const finish = (error?: unknown): void => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        clearTimeout(deadline);
        link.signal.removeEventListener('abort', onAbort);
        client.close({ force: true });
        if (error === undefined) resolve();
        else reject(error);
      };
      const fail = (what: string): void =>
        finish(
          new PlatformError(
            `feishu long connection: ${scrubSecrets(what, secrets)}${lastSdkError ? ` (${lastSdkError})` : ''}`,
          ),
        );
      const onAbort = (): void => finish();
      link.signal.addEventListener('abort', onAbort, { once: true });
      if (link.signal.aborted) return finish();
      const dispatcher = new sdk.EventDispatcher({
        ...(account.config.encrypt_key ? { encryptKey: account.config.encrypt_key } : {}),
        logger,
        loggerLevel: sdk.LoggerLevel.warn,
      }).register({
        // Answered at once: the SDK acknowledges the frame when this returns.
        'im.message.receive_v1': (data: unknown) => {
          const { event_id: eventId, sender, message } = (data ?? {}) as Record<string, unknown>;
          void this.receiveMessage(
            account,
            typeof eventId === 'string' ? eventId : undefined,
            { sender, message },
            link.deliver,
            link.signal,
          );
        },
      });
      client.start({ eventDispatcher: dispatcher }).catch((error: unknown) => fail(errorMessage(error)));
    });
  }
}
