// A fake Discord on 127.0.0.1, for tests: the REST API under /api/v10 (GET /gateway/bot, GET
// /users/@me, channel messages create and edit in JSON or multipart, typing, 401 for a wrong token,
// 400 for a message over 2,000 characters, 429 with retry_after on demand) and the gateway on a
// WebSocket (HELLO, IDENTIFY -> READY, heartbeats and ACKs, RESUME replaying missed events, INVALID
// SESSION, close codes 4004 and 4014). Tests push user messages and read what the bot sent.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  ApplicationFlags,
  GatewayMessageCreateDispatchData,
  GatewayReadyDispatchData,
  GuildMemberFlags,
  MessageType,
  UserFlags,
} from 'discord-api-types/v10';
import { WebSocketServer, type WebSocket } from 'ws';

const MESSAGE_CONTENT_INTENT = 1 << 15;

export interface FakeDiscordOptions {
  token: string;
  botUserId?: string;
  applicationId?: string;
  /** heartbeat_interval of HELLO, in ms (default 41250, Discord's). */
  heartbeatIntervalMs?: number;
  /** Whether the bot may use the Message Content intent (default true; false closes with 4014). */
  messageContentIntent?: boolean;
}

export interface FakeDiscordFile {
  name: string;
  contentType: string;
  bytes: Buffer;
}

export interface FakeDiscordSent {
  id: string;
  channelId: string;
  content: string;
  /** The message this one replies to (message_reference.message_id). */
  replyTo?: string | undefined;
  allowedMentions?: unknown;
  embeds: unknown[];
  files: FakeDiscordFile[];
  edits: number;
  at: number;
  /** The nonce it was created with under enforce_nonce. */
  nonce?: string;
}

export interface FakeDiscordRequest {
  method: string;
  path: string;
  status: number;
  at: number;
}

export interface FakeUserMessage {
  channelId: string;
  /** Set for a guild channel; absent for a DM. */
  guildId?: string;
  authorId: string;
  content: string;
  id?: string;
  mentionsBot?: boolean;
  bot?: boolean;
  type?: number;
  attachments?: Array<{ filename: string; bytes: Buffer; contentType?: string; url?: string }>;
}

interface Session {
  id: string;
  token: string;
  seq: number;
  valid: boolean;
  events: Array<{ s: number; payload: string }>;
  socket?: WebSocket | undefined;
}

export interface FakeDiscord {
  url: string;
  gatewayUrl: string;
  botUserId: string;
  applicationId: string;
  sent: FakeDiscordSent[];
  typing: Array<{ channelId: string; at: number }>;
  requests: FakeDiscordRequest[];
  /** Every text frame the gateway received (IDENTIFY, RESUME, heartbeats), parsed. */
  received: Array<{ op: number; d: unknown }>;
  /** WebSocket connections opened, IDENTIFYs and RESUMEs accepted, heartbeats answered. */
  counts: {
    connections: number;
    identifies: number;
    resumes: number;
    heartbeats: number;
    gatewayBot: number;
  };
  /** Connections that are READY or RESUMED now. */
  live(): number;
  textsIn(channelId: string): string[];
  setToken(token: string): void;
  /** Answers heartbeats (default) or not (a zombie connection). */
  ackHeartbeats(on: boolean): void;
  /** The next `count` REST calls (of paths containing `pathPart`) answer 429 with retry_after. */
  rateLimitNext(retryAfterSeconds: number, count?: number, pathPart?: string): void;
  /** The channel is gone: messages to it answer 404 Unknown Channel. */
  deleteChannel(channelId: string): void;
  /** A user sends a message; returns its id. Dispatched as MESSAGE_CREATE (or kept for a RESUME). */
  userSays(message: FakeUserMessage): string;
  /** Closes every gateway connection with `code` (default 4000, resumable), or cuts them (`'cut'`). */
  dropConnections(code?: number | 'cut'): void;
  close(): Promise<void>;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeDiscord(options: FakeDiscordOptions): Promise<FakeDiscord> {
  let token = options.token;
  let acking = true;
  let nextId = 1_300_000_000_000_000_000n;
  const snowflake = (): string => String((nextId += 1n));
  const botUserId = options.botUserId ?? '900000000000000001';
  const applicationId = options.applicationId ?? '900000000000000002';
  const botUser = {
    id: botUserId,
    username: 'agent-bot',
    discriminator: '0',
    global_name: null,
    avatar: null,
    bot: true,
  };
  const sessions = new Map<string, Session>();
  const attachments = new Map<string, { bytes: Buffer; contentType: string }>();
  const limits: Array<{ retryAfter: number; pathPart: string }> = [];
  const deleted = new Set<string>();
  let origin = '';

  const fake: FakeDiscord = {
    url: '',
    gatewayUrl: '',
    botUserId,
    applicationId,
    sent: [],
    typing: [],
    requests: [],
    received: [],
    counts: { connections: 0, identifies: 0, resumes: 0, heartbeats: 0, gatewayBot: 0 },
    live: () => [...sessions.values()].filter((session) => session.valid && session.socket).length,
    textsIn: (channelId) =>
      fake.sent
        .filter((sent) => sent.channelId === channelId && sent.content !== '')
        .map((sent) => sent.content),
    setToken: (value) => {
      token = value;
    },
    ackHeartbeats: (on) => {
      acking = on;
    },
    rateLimitNext: (retryAfter, count = 1, pathPart = '') => {
      for (let index = 0; index < count; index += 1) limits.push({ retryAfter, pathPart });
    },
    deleteChannel: (channelId) => {
      deleted.add(channelId);
    },
    userSays: (message) => {
      const id = message.id ?? snowflake();
      const files = (message.attachments ?? []).map((attachment) => {
        const attachmentId = snowflake();
        const contentType = attachment.contentType ?? 'image/png';
        attachments.set(attachmentId, { bytes: attachment.bytes, contentType });
        const url =
          attachment.url ??
          `${origin}/attachments/${message.channelId}/${attachmentId}/${attachment.filename}`;
        return {
          id: attachmentId,
          filename: attachment.filename,
          size: attachment.bytes.length,
          url,
          proxy_url: url,
          content_type: contentType,
        };
      });
      const data: GatewayMessageCreateDispatchData = {
        id,
        channel_id: message.channelId,
        ...(message.guildId
          ? {
              guild_id: message.guildId,
              member: {
                roles: [],
                joined_at: new Date().toISOString(),
                deaf: false,
                mute: false,
                flags: 0 as GuildMemberFlags,
              },
            }
          : {}),
        author: {
          id: message.authorId,
          username: `user${message.authorId.slice(-4)}`,
          discriminator: '0',
          global_name: null,
          avatar: null,
          ...(message.bot ? { bot: true } : {}),
        },
        content: message.content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: message.mentionsBot ? [botUser] : [],
        mention_roles: [],
        attachments: files,
        embeds: [],
        pinned: false,
        type: (message.type ?? 0) as MessageType,
      };
      dispatch('MESSAGE_CREATE', data);
      return id;
    },
    dropConnections: (code = 4000) => {
      for (const session of sessions.values()) {
        const socket = session.socket;
        session.socket = undefined;
        if (!socket) continue;
        if (code === 'cut') socket.terminate();
        else socket.close(code, 'dropped by the fake');
      }
    },
    close: async () => {
      fake.dropConnections('cut');
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function dispatch(type: string, data: unknown): void {
    for (const session of sessions.values()) {
      if (!session.valid || session.token !== token) continue;
      session.seq += 1;
      const payload = JSON.stringify({ op: 0, t: type, s: session.seq, d: data });
      session.events.push({ s: session.seq, payload });
      if (session.events.length > 200) session.events.shift();
      session.socket?.send(payload);
    }
  }

  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (socket) => {
    fake.counts.connections += 1;
    let session: Session | undefined;
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: options.heartbeatIntervalMs ?? 41_250 } }));
    socket.on('close', (code) => {
      if (session?.socket === socket) session.socket = undefined;
      // Discord ends a session closed with 1000 or 1001; other codes leave it resumable.
      if (session && (code === 1000 || code === 1001)) session.valid = false;
    });
    socket.on('message', (raw) => {
      let frame: { op?: number; d?: Record<string, unknown> | number | null };
      try {
        frame = JSON.parse(String(raw)) as typeof frame;
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      fake.received.push({ op: Number(frame.op), d: frame.d });
      const d = (typeof frame.d === 'object' && frame.d !== null ? frame.d : {}) as Record<string, unknown>;
      switch (Number(frame.op)) {
        case 1:
          fake.counts.heartbeats += 1;
          if (acking) socket.send(JSON.stringify({ op: 11 }));
          return;
        case 2: {
          if (d['token'] !== token) return socket.close(4004, 'Authentication failed.');
          const intents = Number(d['intents']);
          if (intents & MESSAGE_CONTENT_INTENT && options.messageContentIntent === false) {
            return socket.close(4014, 'Disallowed intent(s).');
          }
          fake.counts.identifies += 1;
          // One connection per bot: a new session replaces the old ones.
          for (const old of sessions.values()) old.valid = false;
          session = { id: randomUUID().replaceAll('-', ''), token, seq: 1, valid: true, events: [], socket };
          sessions.set(session.id, session);
          // Typed with discord-api-types: the fields Discord sends, as the client library expects them.
          const ready: GatewayReadyDispatchData & Record<string, unknown> = {
            v: 10,
            user: { ...botUser, verified: true, mfa_enabled: false, flags: 0 as UserFlags },
            guilds: [],
            session_id: session.id,
            session_type: 'normal',
            resume_gateway_url: fake.gatewayUrl,
            shard: [0, 1],
            application: { id: applicationId, flags: 0 as ApplicationFlags, flags_new: '0' },
            private_channels: [],
            relationships: [],
            presences: [],
            guild_join_requests: [],
            geo_ordered_rtc_regions: [],
            user_settings: {},
            _trace: ['fake-discord'],
          };
          socket.send(JSON.stringify({ op: 0, t: 'READY', s: 1, d: ready }));
          return;
        }
        case 6: {
          const found = sessions.get(String(d['session_id']));
          if (!found || !found.valid || d['token'] !== token || found.token !== token) {
            socket.send(JSON.stringify({ op: 9, d: false }));
            return;
          }
          fake.counts.resumes += 1;
          session = found;
          found.socket?.terminate();
          found.socket = socket;
          const from = Number(d['seq'] ?? 0);
          for (const event of found.events) if (event.s > from) socket.send(event.payload);
          found.seq += 1;
          socket.send(JSON.stringify({ op: 0, t: 'RESUMED', s: found.seq, d: { _trace: ['fake-discord'] } }));
          return;
        }
        default:
          return;
      }
    });
  });

  async function handleApi(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
  ): Promise<number> {
    const method = request.method ?? 'GET';
    const limit = limits.findIndex((entry) => path.includes(entry.pathPart));
    if (limit !== -1) {
      const retryAfter = limits.splice(limit, 1)[0]?.retryAfter ?? 1;
      sendJson(
        response,
        429,
        { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
        {
          'retry-after': String(retryAfter),
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': String(retryAfter),
          'x-ratelimit-bucket': 'fake-bucket',
          'x-ratelimit-scope': 'user',
        },
      );
      return 429;
    }
    if (request.headers.authorization !== `Bot ${token}`) {
      sendJson(response, 401, { message: '401: Unauthorized', code: 0 });
      return 401;
    }
    if (method === 'GET' && path === '/gateway/bot') {
      fake.counts.gatewayBot += 1;
      sendJson(response, 200, {
        url: fake.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
      });
      return 200;
    }
    if (method === 'GET' && path === '/users/@me') {
      sendJson(response, 200, botUser);
      return 200;
    }
    const typing = /^\/channels\/(\d+)\/typing$/.exec(path);
    if (method === 'POST' && typing) {
      fake.typing.push({ channelId: typing[1] as string, at: Date.now() });
      response.writeHead(204).end();
      return 204;
    }
    const create = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (method === 'POST' && create) return createMessage(request, response, create[1] as string);
    const edit = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (method === 'PATCH' && edit) {
      const found = fake.sent.find((sent) => sent.id === edit[2] && sent.channelId === edit[1]);
      if (!found) {
        sendJson(response, 404, { message: 'Unknown Message', code: 10008 });
        return 404;
      }
      const body = JSON.parse((await readBody(request)).toString('utf8') || '{}') as { content?: string };
      found.content = body.content ?? found.content;
      found.edits += 1;
      sendJson(response, 200, messageView(found));
      return 200;
    }
    sendJson(response, 404, { message: '404: Not Found', code: 0 });
    return 404;
  }

  async function createMessage(
    request: IncomingMessage,
    response: ServerResponse,
    channelId: string,
  ): Promise<number> {
    const raw = await readBody(request);
    if (deleted.has(channelId)) {
      sendJson(response, 404, { message: 'Unknown Channel', code: 10003 });
      return 404;
    }
    const type = request.headers['content-type'] ?? '';
    let body: Record<string, unknown> = {};
    const files: FakeDiscordFile[] = [];
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
      for (const [key, value] of form.entries()) {
        if (key === 'payload_json') body = JSON.parse(String(value)) as Record<string, unknown>;
        else if (typeof value !== 'string') {
          files.push({
            name: value.name,
            contentType: value.type,
            bytes: Buffer.from(await value.arrayBuffer()),
          });
        }
      }
    } else body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
    const content = typeof body['content'] === 'string' ? body['content'] : '';
    const embeds = Array.isArray(body['embeds']) ? body['embeds'] : [];
    if (content.length > 2000) {
      sendJson(response, 400, {
        message: 'Invalid Form Body',
        code: 50035,
        errors: {
          content: {
            _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }],
          },
        },
      });
      return 400;
    }
    if (content.trim() === '' && embeds.length === 0 && files.length === 0) {
      sendJson(response, 400, { message: 'Cannot send an empty message', code: 50006 });
      return 400;
    }
    // As Discord does with enforce_nonce: a message already created by the bot with this nonce (in
    // the last few minutes) is returned, and no second one is created.
    const nonce = body['enforce_nonce'] === true ? body['nonce'] : undefined;
    if (typeof nonce === 'string' || typeof nonce === 'number') {
      const same = fake.sent.find((sent) => sent.channelId === channelId && sent.nonce === String(nonce));
      if (same) {
        sendJson(response, 200, messageView(same));
        return 200;
      }
    }
    const reference = body['message_reference'] as { message_id?: string } | undefined;
    const sent: FakeDiscordSent = {
      ...(nonce === undefined ? {} : { nonce: String(nonce) }),
      id: snowflake(),
      channelId,
      content,
      replyTo: reference?.message_id,
      allowedMentions: body['allowed_mentions'],
      embeds,
      files,
      edits: 0,
      at: Date.now(),
    };
    fake.sent.push(sent);
    sendJson(response, 200, messageView(sent));
    return 200;
  }

  function messageView(sent: FakeDiscordSent): object {
    return {
      id: sent.id,
      channel_id: sent.channelId,
      author: botUser,
      content: sent.content,
      timestamp: new Date(sent.at).toISOString(),
      edited_timestamp: sent.edits > 0 ? new Date().toISOString() : null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: sent.files.map((file, index) => ({
        id: `${sent.id}${index}`,
        filename: file.name,
        size: file.bytes.length,
        url: `${origin}/attachments/${sent.channelId}/${sent.id}/${file.name}`,
        proxy_url: '',
        content_type: file.contentType,
      })),
      embeds: sent.embeds,
      pinned: false,
      type: sent.replyTo ? 19 : 0,
      ...(sent.replyTo
        ? { message_reference: { type: 0, message_id: sent.replyTo, channel_id: sent.channelId } }
        : {}),
    };
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const attachment = /^\/attachments\/\d+\/(\d+)\//.exec(url.pathname);
    if (request.method === 'GET' && attachment) {
      const found = attachments.get(attachment[1] as string);
      if (!found) return sendJson(response, 404, { message: 'not found' });
      response.writeHead(200, { 'content-type': found.contentType, 'content-length': found.bytes.length });
      response.end(found.bytes);
      return;
    }
    if (!url.pathname.startsWith('/api/v10/'))
      return sendJson(response, 404, { message: '404: Not Found', code: 0 });
    const path = url.pathname.slice('/api/v10'.length);
    handleApi(request, response, path)
      .then((status) => fake.requests.push({ method: request.method ?? 'GET', path, status, at: Date.now() }))
      .catch(() => {
        if (!response.headersSent) sendJson(response, 500, { message: 'fake failure', code: 0 });
      });
  });
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (
      url.pathname !== '/gateway' ||
      url.searchParams.get('v') !== '10' ||
      url.searchParams.get('encoding') !== 'json'
    ) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  fake.url = origin;
  fake.gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
  return fake;
}
