// One connection of DingTalk's Stream mode, spoken over `ws` by us: the dingtalk-stream SDK takes its
// gateway URL from a constant (https://api.dingtalk.com), runs its own reconnect timers and logs to
// the console, so it can be neither pointed at an account's api_base nor run by our reconnect loop.
// Protocol (open-dingtalk developerpedia, "Stream protocol"): POST /v1.0/gateway/connections/open
// with the client id, secret and subscriptions answers {endpoint, ticket}; a WebSocket to
// endpoint?ticket=... then carries JSON frames {specVersion, type: SYSTEM | EVENT | CALLBACK,
// headers: {topic, messageId, contentType, time, ...}, data: "<JSON text>"}, each answered with
// {code, headers: {contentType, messageId}, message, data}. SYSTEM "ping" is answered with its own
// data; SYSTEM "disconnect" announces that the platform closes the socket in 10 s.

/** The stream topic of robot messages (DingTalk's documented value). */
const TOPIC_ROBOT = '/v1.0/im/bot/messages/get';
import { z } from 'zod';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import { callJson } from './open-api.ts';
import { PlatformError } from '../platform-http.ts';

/** Largest frame accepted from the platform. */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

export interface StreamSession {
  /** Origin of the API that opens connections (https://api.dingtalk.com or the account's api_base). */
  origin: string;
  clientId: string;
  clientSecret: string;
  /** Ends the connection (account stopped or reconfigured). */
  signal: AbortSignal;
  /** A WebSocket ping goes out this often; a connection that did not answer the last one is dropped. */
  pingIntervalMs: number;
  /** Time limit of the gateway call and of the WebSocket handshake. */
  timeoutMs: number;
  /** The socket is open and receiving. */
  onOpen(): void;
  /** The data of one robot message callback, already acknowledged. */
  onRobotMessage(data: string): void;
  log(level: 'info' | 'warn', fields: object, message: string): void;
}

const frameSchema = z.object({
  type: z.string(),
  headers: z.record(z.string(), z.unknown()).default({}),
  data: z.string().default(''),
});
type Frame = z.infer<typeof frameSchema>;

const endpointSchema = z.object({ endpoint: z.string().min(1), ticket: z.string().min(1) });

/** Registers the connection; the ticket is good for one socket within 90 seconds. */
async function openConnection(session: StreamSession): Promise<{ url: URL; ticket: string }> {
  const answer = await callJson(
    {
      what: 'dingtalk gateway/connections/open',
      method: 'POST',
      url: `${session.origin}/v1.0/gateway/connections/open`,
      body: {
        clientId: session.clientId,
        clientSecret: session.clientSecret,
        subscriptions: [{ type: 'CALLBACK', topic: TOPIC_ROBOT }],
        ua: 'agent-service-dingtalk/1',
      },
      signal: session.signal,
      secrets: [session.clientSecret],
    },
    session.timeoutMs,
  );
  const parsed = endpointSchema.safeParse(answer);
  if (!parsed.success) throw new PlatformError('dingtalk gateway/connections/open: no endpoint and ticket');
  let url: URL;
  try {
    url = new URL(parsed.data.endpoint);
  } catch {
    throw new PlatformError('dingtalk gateway/connections/open: the endpoint is not a URL');
  }
  // wss only, unless the API itself is plain http (a local proxy or the tests' fake platform).
  const plainAllowed = new URL(session.origin).protocol === 'http:';
  if (url.protocol !== 'wss:' && !(plainAllowed && url.protocol === 'ws:')) {
    throw new PlatformError('dingtalk gateway/connections/open: the endpoint is not a wss:// URL');
  }
  url.searchParams.set('ticket', parsed.data.ticket);
  return { url, ticket: parsed.data.ticket };
}

/** A socket error as a safe message: ws quotes the URL (and so the ticket) in some of its texts. */
function socketError(error: Error, secrets: string[]): PlatformError {
  const code = (error as { code?: unknown }).code;
  const status = /^Unexpected server response: (\d{3})$/.exec(error.message)?.[1];
  const detail = status
    ? `the endpoint answered ${status}`
    : typeof code === 'string' && /^[A-Z_0-9]{2,40}$/.test(code)
      ? code
      : 'connection failed';
  return new PlatformError(scrubSecrets(`dingtalk stream: ${detail}`, secrets));
}

/**
 * Opens one stream connection and receives until it ends: resolves when the platform closes it
 * (after a SYSTEM disconnect, say) or the session's signal aborts, rejects when it fails.
 */
export async function runStreamConnection(session: StreamSession): Promise<void> {
  const { url, ticket } = await openConnection(session);
  const secrets = [session.clientSecret, ticket];
  if (session.signal.aborted) return;
  // ws loads with the first DingTalk connection, not at start.
  const { default: WebSocketClient } = await import('ws');
  const socket = new WebSocketClient(url, {
    handshakeTimeout: session.timeoutMs,
    maxPayload: MAX_FRAME_BYTES,
    followRedirects: false,
    perMessageDeflate: false,
  });
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    let opened = false;
    let answeredPing = true;
    let pinger: NodeJS.Timeout | undefined;
    let killer: NodeJS.Timeout | undefined;
    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearInterval(pinger);
      clearTimeout(killer);
      session.signal.removeEventListener('abort', stop);
      if (error && !session.signal.aborted) reject(error);
      else resolve();
    };
    const closeSoon = (reason: string): void => {
      socket.close(1000, reason);
      // A peer that never answers the close is cut off.
      killer ??= setTimeout(() => socket.terminate(), 1000);
      killer.unref();
    };
    const stop = (): void => closeSoon('stopping');
    const send = (reply: object): void => {
      if (socket.readyState === WebSocketClient.OPEN) socket.send(JSON.stringify(reply));
    };
    const ack = (frame: Frame, code: number, message: string, data: unknown): void =>
      send({
        code,
        headers: { contentType: 'application/json', messageId: frame.headers['messageId'] },
        message,
        data: JSON.stringify(data),
      });
    const onFrame = (frame: Frame): void => {
      const topic = frame.headers['topic'];
      switch (frame.type) {
        case 'SYSTEM':
          if (topic === 'ping') {
            send({ code: 200, headers: frame.headers, message: 'OK', data: frame.data });
          } else if (topic === 'disconnect') {
            // The platform closes the socket in 10 s; closing now gets the new connection sooner.
            session.log('info', {}, 'dingtalk stream: the platform asked to reconnect');
            closeSoon('reconnecting');
          }
          return;
        case 'CALLBACK':
          if (topic !== TOPIC_ROBOT) return ack(frame, 404, 'topic not subscribed', { response: null });
          // Acknowledged first: the answer to the user may take minutes.
          ack(frame, 200, 'OK', { response: null });
          session.onRobotMessage(frame.data);
          return;
        case 'EVENT':
          return ack(frame, 200, 'OK', { status: 'SUCCESS', message: 'success' });
        default:
          return;
      }
    };

    session.signal.addEventListener('abort', stop, { once: true });
    socket.on('open', () => {
      opened = true;
      session.onOpen();
      pinger = setInterval(() => {
        if (!answeredPing) {
          socket.terminate();
          settle(new PlatformError('dingtalk stream: the connection stopped answering pings'));
          return;
        }
        answeredPing = false;
        socket.ping();
      }, session.pingIntervalMs);
    });
    socket.on('pong', () => {
      answeredPing = true;
    });
    socket.on('message', (data, isBinary) => {
      answeredPing = true;
      let frame: Frame;
      try {
        if (isBinary) throw new Error('binary');
        frame = frameSchema.parse(JSON.parse(String(data)));
      } catch {
        session.log('warn', {}, 'dingtalk stream: a malformed frame was skipped');
        return;
      }
      onFrame(frame);
    });
    socket.on('error', (error) => {
      socket.terminate();
      settle(socketError(error, secrets));
    });
    socket.on('close', () => {
      settle(opened ? undefined : new PlatformError('dingtalk stream: the socket closed before it opened'));
    });
  });
}
