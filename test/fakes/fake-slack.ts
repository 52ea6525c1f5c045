// A fake Slack on 127.0.0.1, for tests: the Web API methods the adapter calls (POST /api/<method>,
// form-encoded or JSON, token in the Authorization header, answers {ok, ...} or {ok: false, error}),
// the upload URL of files.getUploadURLExternal, users' files (url_private, only with the bot token),
// and Socket Mode: apps.connections.open (app-level token) hands out a ws:// URL on loopback, where
// the fake says hello, pushes events_api envelopes and records each acknowledgement by envelope_id.
// Everything the bot shows in a channel is kept in order (a message as last edited).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export const BOT_USER_ID = 'UBOT0001';
export const BOT_ID = 'BBOT0001';

export interface FakeSlackCall {
  method: string;
  /** The bearer token the call carried. */
  token: string;
  params: Record<string, unknown>;
  /** What the fake answered: 200 with ok true or false, or the injected status. */
  status: number;
  ok: boolean;
  at: number;
}

export interface FakeSlackPost {
  channel: string;
  ts: string;
  threadTs?: string;
  /** The text as last edited (as sent, Slack-escaped). */
  text: string;
  /** Every text the message showed, oldest first. */
  history: string[];
  blocks?: unknown;
}

export interface FakeSlackUpload {
  fileId: string;
  fileName: string;
  bytes: Buffer;
  channel?: string;
  kind: 'image' | 'file';
}

export interface FakeUserMessage {
  channel: string;
  /** im for a DM (default when the channel starts with D), else channel. */
  channelType?: 'im' | 'channel' | 'group' | 'mpim';
  user: string;
  text: string;
  ts: string;
  threadTs?: string;
  /** app_mention instead of message. */
  mention?: boolean;
  subtype?: string;
  botId?: string;
  files?: Array<Record<string, unknown>>;
}

export interface FakeSlack {
  /** http://127.0.0.1:<port> (the account's api_base; the Web API is under /api/). */
  readonly url: string;
  readonly calls: FakeSlackCall[];
  readonly posts: FakeSlackPost[];
  readonly uploads: FakeSlackUpload[];
  /** Requests for users' files (url_private), with the token each carried. */
  readonly downloads: Array<{ path: string; token: string }>;
  /** Socket Mode connections opened so far. */
  readonly connections: number;
  /** Envelope ids the bot acknowledged. */
  readonly acks: string[];
  setBotTokens(tokens: string[]): void;
  setAppTokens(tokens: string[]): void;
  /** The next `times` calls of `method` answer `status` (429 carries Retry-After: retryAfter). */
  failNext(method: string, status: number, times?: number, retryAfterSeconds?: number): void;
  /** Pushes an events_api envelope to every open connection; returns its envelope_id. */
  pushEvent(event: Record<string, unknown>, options?: { eventId?: string; retryAttempt?: number }): string;
  /** Sends `frame` as it is to every Socket Mode connection (malformed envelopes). */
  pushFrame(frame: unknown): void;
  /** The event a user's message makes (message or app_mention). */
  messageEvent(message: FakeUserMessage): Record<string, unknown>;
  /** The event_callback body the Events API posts for an event. */
  callbackBody(event: Record<string, unknown>, eventId?: string): string;
  /** A file the user attached: served at url_private to the bot token only. */
  addFile(name: string, mimetype: string, bytes: Buffer): Record<string, unknown>;
  /** Texts the bot shows in a channel, oldest first (unescaped, as last edited). */
  textsIn(channel: string): string[];
  /** Media the bot shared to a channel. */
  mediaIn(channel: string): Array<'image' | 'file'>;
  callsOf(method: string): FakeSlackCall[];
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<void>;
  /** Closes every Socket Mode connection, as a Slack restart does. */
  dropConnections(): void;
  /** Sends Slack's `disconnect` message (refresh_requested): the client is to open a new connection. */
  requestRefresh(): void;
  close(): Promise<void>;
}

const unescape = (text: string): string =>
  text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Form fields as the WebClient sends them (objects JSON-encoded), or a JSON body. */
function paramsOf(request: IncomingMessage, body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8');
  if ((request.headers['content-type'] ?? '').includes('json')) {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    // The WebClient JSON-encodes the fields that are arrays or objects.
    try {
      params[key] = key === 'files' || key === 'blocks' ? (JSON.parse(value) as unknown) : value;
    } catch {
      params[key] = value;
    }
  }
  return params;
}

export async function startFakeSlack(
  options: { botTokens?: string[]; appTokens?: string[] } = {},
): Promise<FakeSlack> {
  let botTokens = options.botTokens ?? ['xoxb-fake-bot-token'];
  let appTokens = options.appTokens ?? ['xapp-fake-app-token'];
  const calls: FakeSlackCall[] = [];
  const posts: FakeSlackPost[] = [];
  const uploads: FakeSlackUpload[] = [];
  const downloads: Array<{ path: string; token: string }> = [];
  const pending = new Map<string, { fileName: string; bytes?: Buffer }>();
  const files = new Map<string, { mimetype: string; bytes: Buffer }>();
  const failures: Array<{ method: string; status: number; retryAfter: number }> = [];
  const sockets = new Set<WebSocket>();
  const tickets = new Set<string>();
  const acks: string[] = [];
  const ackWaiters = new Map<string, () => void>();
  let connections = 0;
  let counter = 0;
  let clock = 1_700_000_000;
  let url = '';
  const nextTs = (): string => `${(clock += 1)}.${String((counter += 1)).padStart(6, '0')}`;

  const json = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    response.end(JSON.stringify(body));
  };

  const api = (method: string, token: string, params: Record<string, unknown>): Record<string, unknown> => {
    const bot = botTokens.includes(token);
    if (method === 'apps.connections.open') {
      if (!appTokens.includes(token)) return { ok: false, error: 'invalid_auth' };
      const ticket = `ticket-${(counter += 1)}`;
      tickets.add(ticket);
      return { ok: true, url: `${url.replace('http', 'ws')}/link/?ticket=${ticket}&app_id=AFAKE` };
    }
    if (!bot) return { ok: false, error: token === '' ? 'not_authed' : 'invalid_auth' };
    const channel = String(params['channel'] ?? params['channel_id'] ?? '');
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.com/',
          team: 'Fake',
          user: 'bot',
          team_id: 'TFAKE',
          user_id: BOT_USER_ID,
          bot_id: BOT_ID,
        };
      case 'chat.postMessage': {
        if (channel === '' || channel === 'CMISSING') return { ok: false, error: 'channel_not_found' };
        const post: FakeSlackPost = {
          channel,
          ts: nextTs(),
          text: String(params['text'] ?? ''),
          history: [String(params['text'] ?? '')],
          ...(typeof params['thread_ts'] === 'string' ? { threadTs: params['thread_ts'] } : {}),
          ...(params['blocks'] === undefined ? {} : { blocks: params['blocks'] }),
        };
        posts.push(post);
        return { ok: true, channel, ts: post.ts, message: { text: post.text, ts: post.ts } };
      }
      case 'chat.update': {
        const post = posts.find((p) => p.channel === channel && p.ts === params['ts']);
        if (!post) return { ok: false, error: 'message_not_found' };
        post.text = String(params['text'] ?? '');
        post.history.push(post.text);
        return { ok: true, channel, ts: post.ts, text: post.text };
      }
      case 'conversations.open': {
        const users = String(params['users'] ?? '');
        return users
          ? { ok: true, channel: { id: `D${users.slice(1)}` } }
          : { ok: false, error: 'users_list_not_supplied' };
      }
      case 'conversations.info':
        return { ok: true, channel: { id: channel, is_im: channel.startsWith('D') } };
      case 'files.getUploadURLExternal': {
        const fileId = `F${(counter += 1)}`;
        pending.set(fileId, { fileName: String(params['filename'] ?? 'file') });
        return { ok: true, upload_url: `${url}/upload/${fileId}`, file_id: fileId };
      }
      case 'files.completeUploadExternal': {
        const list = Array.isArray(params['files']) ? (params['files'] as Array<{ id?: string }>) : [];
        const done = [];
        for (const { id } of list) {
          const upload = pending.get(String(id));
          if (!upload?.bytes) return { ok: false, error: 'file_not_found' };
          const image = /\.(png|jpe?g|gif|webp)$/i.test(upload.fileName);
          uploads.push({
            fileId: String(id),
            fileName: upload.fileName,
            bytes: upload.bytes,
            channel,
            kind: image ? 'image' : 'file',
          });
          done.push({ id, name: upload.fileName });
        }
        return { ok: true, files: done };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  const server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const body = await readBody(request);
      const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (path.startsWith('/upload/')) {
        const upload = pending.get(path.slice('/upload/'.length));
        if (!upload) return json(response, 404, { error: 'no such upload' });
        upload.bytes = body;
        response.writeHead(200, { 'content-type': 'text/plain' });
        return response.end(`OK - ${body.length}`);
      }
      if (path.startsWith('/files-pri/')) {
        downloads.push({ path, token });
        const file = files.get(path);
        if (!file) return json(response, 404, { error: 'no such file' });
        // Slack answers a download without a valid token with its sign-in page.
        if (!botTokens.includes(token)) {
          response.writeHead(200, { 'content-type': 'text/html' });
          return response.end('<html>sign in</html>');
        }
        response.writeHead(200, { 'content-type': file.mimetype });
        return response.end(file.bytes);
      }
      if (!path.startsWith('/api/')) return json(response, 404, { error: 'not found' });
      const method = path.slice('/api/'.length);
      const params = paramsOf(request, body);
      const failure = failures.findIndex((f) => f.method === method);
      if (failure >= 0) {
        const { status, retryAfter } = failures.splice(failure, 1)[0] ?? { status: 500, retryAfter: 0 };
        calls.push({ method, token, params, status, ok: false, at: Date.now() });
        return json(
          response,
          status,
          { ok: false, error: status === 429 ? 'ratelimited' : 'fatal_error' },
          status === 429 ? { 'retry-after': String(retryAfter) } : {},
        );
      }
      const answer = api(method, token, params);
      calls.push({ method, token, params, status: 200, ok: answer['ok'] === true, at: Date.now() });
      json(response, 200, answer);
    })();
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    const ticket = new URL(request.url ?? '/', 'http://x').searchParams.get('ticket') ?? '';
    if (!tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      connections += 1;
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data) => {
        try {
          const frame = JSON.parse(String(data)) as { envelope_id?: unknown };
          if (typeof frame.envelope_id === 'string') {
            acks.push(frame.envelope_id);
            ackWaiters.get(frame.envelope_id)?.();
          }
        } catch {
          // not an acknowledgement
        }
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: sockets.size,
          debug_info: { host: 'fake-slack', approximate_connection_time: 18060 },
          connection_info: { app_id: 'AFAKE' },
        }),
      );
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeSlack = {
    get url() {
      return url;
    },
    calls,
    posts,
    uploads,
    downloads,
    get connections() {
      return connections;
    },
    acks,
    setBotTokens: (tokens) => {
      botTokens = tokens;
    },
    setAppTokens: (tokens) => {
      appTokens = tokens;
    },
    failNext: (method, status, times = 1, retryAfterSeconds = 1) => {
      for (let i = 0; i < times; i += 1) failures.push({ method, status, retryAfter: retryAfterSeconds });
    },
    pushFrame(frame) {
      for (const socket of sockets) socket.send(JSON.stringify(frame));
    },
    pushEvent(event, pushOptions = {}) {
      const envelopeId = `env-${(counter += 1)}`;
      const frame = {
        envelope_id: envelopeId,
        payload: {
          token: 'verification-token-unused',
          team_id: 'TFAKE',
          api_app_id: 'AFAKE',
          event,
          type: 'event_callback',
          event_id: pushOptions.eventId ?? `Ev${counter}`,
          event_time: clock,
          authorizations: [{ team_id: 'TFAKE', user_id: BOT_USER_ID, is_bot: true }],
        },
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: pushOptions.retryAttempt ?? 0,
        retry_reason: pushOptions.retryAttempt ? 'timeout' : '',
      };
      for (const socket of sockets) socket.send(JSON.stringify(frame));
      return envelopeId;
    },
    messageEvent(message) {
      const channelType = message.channelType ?? (message.channel.startsWith('D') ? 'im' : 'channel');
      return {
        type: message.mention ? 'app_mention' : 'message',
        ...(message.mention ? {} : { channel_type: channelType }),
        channel: message.channel,
        user: message.user,
        text: message.text,
        ts: message.ts,
        event_ts: message.ts,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        ...(message.subtype ? { subtype: message.subtype } : {}),
        ...(message.botId ? { bot_id: message.botId } : {}),
        ...(message.files ? { files: message.files } : {}),
      };
    },
    callbackBody(event, eventId) {
      return JSON.stringify({
        token: 'verification-token-unused',
        team_id: 'TFAKE',
        api_app_id: 'AFAKE',
        event,
        type: 'event_callback',
        event_id: eventId ?? `Ev${(counter += 1)}`,
        event_time: clock,
        authorizations: [{ team_id: 'TFAKE', user_id: BOT_USER_ID, is_bot: true }],
      });
    },
    addFile(name, mimetype, bytes) {
      const id = `F${(counter += 1)}`;
      const path = `/files-pri/TFAKE-${id}/${name}`;
      files.set(path, { mimetype, bytes });
      return {
        id,
        name,
        mimetype,
        size: bytes.length,
        url_private: `${url}${path}`,
        url_private_download: `${url}${path}`,
      };
    },
    textsIn: (channel) => posts.filter((post) => post.channel === channel).map((post) => unescape(post.text)),
    mediaIn: (channel) => uploads.filter((upload) => upload.channel === channel).map((upload) => upload.kind),
    callsOf: (method) => calls.filter((call) => call.method === method),
    waitForAck(envelopeId, timeoutMs = 5000) {
      if (acks.includes(envelopeId)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ack for ${envelopeId}`)), timeoutMs);
        ackWaiters.set(envelopeId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    dropConnections() {
      for (const socket of sockets) socket.close(1001, 'restarting');
    },
    requestRefresh() {
      const frame = { type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'fake-slack' } };
      for (const socket of sockets) socket.send(JSON.stringify(frame));
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
