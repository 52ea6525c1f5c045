// A fake Feishu open platform on 127.0.0.1, for tests: the tenant token, bot info, message send /
// reply / card patch (with Feishu's size and 5-per-second patch limits), image and file upload,
// message resources, and the long connection: endpoint discovery and a WebSocket speaking the SDK's
// protobuf frames (pbbp2.Frame: ping/pong control frames, event data frames split into fragments,
// and the ACK frames the client sends back). Also builds signed and encrypted webhook requests.
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import protobuf from 'protobufjs';
import { WebSocketServer, type WebSocket } from 'ws';

// SeqID and LogID are uint64 on the wire; as varints they encode the same as uint32 for the small
// values the fake uses, which spares protobufjs the optional "long" package.
const FRAME_PROTO = `
syntax = "proto2";
package pbbp2;
message Header { required string key = 1; required string value = 2; }
message Frame {
  required uint32 SeqID = 1;
  required uint32 LogID = 2;
  required int32 service = 3;
  required int32 method = 4;
  repeated Header headers = 5;
  optional string payloadEncoding = 6;
  optional string payloadType = 7;
  optional bytes payload = 8;
  optional string LogIDNew = 9;
}`;
const Frame = protobuf.parse(FRAME_PROTO, { keepCase: true }).root.lookupType('pbbp2.Frame');
const CONTROL = 0;
const DATA = 1;
const SERVICE_ID = 33;
const BOT_NAME = 'Fake Bot';

interface FrameObject {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: Array<{ key: string; value: string }>;
  payload?: Uint8Array;
}

export interface FakeFeishuSent {
  messageId: string;
  chatId: string;
  msgType: string;
  /** The content as last set (parsed JSON). */
  content: Record<string, unknown>;
  /** The texts of the card after each patch, oldest first. */
  edits: string[];
  replyTo?: string;
  replyInThread?: boolean;
  receiveIdType?: string;
}

export interface FakeFeishuUpload {
  key: string;
  fileName: string;
  /** image_type of an image, file_type of a file. */
  type: string;
  bytes: Buffer;
}

export interface FakeUserMessage {
  chatId: string;
  chatType: 'p2p' | 'group';
  senderOpenId: string;
  /** A text message; each "@bot" in it becomes a mention of the bot. */
  text?: string;
  /** A rich text (post) message: {title, content: paragraphs of elements}. */
  post?: Record<string, unknown>;
  /** An image message with this image_key (add its bytes with addResource). */
  imageKey?: string;
  messageId?: string;
  eventId?: string;
  threadId?: string;
  /** Mentions of others, as Feishu lists them. */
  mentions?: Array<{ key: string; openId: string; name: string }>;
  senderType?: 'user' | 'app';
}

export interface FakeFeishuOptions {
  appId?: string;
  appSecret?: string;
  botOpenId?: string;
  /** Put in each event's header.token. */
  verificationToken?: string;
  /** Lifetime of a tenant token, in seconds (default 7200). */
  tokenLifetimeSeconds?: number;
  /** PingInterval handed to the client, in seconds (default 120). */
  pingIntervalSeconds?: number;
}

export interface FakeFeishu {
  /** The api_base to configure: http://127.0.0.1:<port>. */
  readonly url: string;
  readonly appId: string;
  readonly botOpenId: string;
  readonly sent: FakeFeishuSent[];
  readonly uploads: FakeFeishuUpload[];
  /** Every API call, in order: "<METHOD> <path>" with its status. */
  readonly calls: Array<{ call: string; status: number }>;
  /** ACK frames the client sent, by the frame's message_id, with the code it answered. */
  readonly acks: Array<{ frameId: string; code: number }>;
  /** WebSocket connections accepted so far, sockets open now, pings received. */
  readonly connects: number;
  readonly liveSockets: number;
  readonly pings: number;
  readonly tokenRequests: number;
  /** From now on only this secret is accepted (a secret reset in the console). */
  setSecret(secret: string): void;
  /** Every token issued so far stops working. */
  expireTokens(): void;
  /** The next `times` endpoint discoveries fail with this code (a platform restarting). */
  refuseEndpoint(times: number, code?: number): void;
  /** Stops (or resumes) answering pings. */
  answerPings(on: boolean): void;
  /** The next `times` calls whose "<METHOD> <path>" matches fail with this status, code and msg. */
  failNext(
    pattern: RegExp,
    status: number,
    code: number,
    times?: number,
    extra?: { msg?: string; headers?: Record<string, string> },
  ): void;
  /** A file of a user's message, for the resource download. */
  addResource(messageId: string, fileKey: string, bytes: Buffer, contentType: string): void;
  /** The im.message.receive_v1 event of a user's message (registered, not sent). */
  messageEvent(message: FakeUserMessage): Record<string, unknown>;
  /** Sends an event to every open socket in `fragments` frames; returns the frames' message_id. */
  pushEvent(event: Record<string, unknown>, fragments?: number): string;
  /** messageEvent + pushEvent. */
  userSays(message: FakeUserMessage): Record<string, unknown>;
  /** Closes every socket (the platform restarting or dropping the connection). */
  dropConnections(): void;
  /** The texts the bot shows in a chat, oldest first (a card as last patched). */
  textsIn(chatId: string): string[];
  close(): Promise<void>;
}

export function textOfContent(msgType: string, content: Record<string, unknown>): string {
  if (msgType === 'text') return String(content['text'] ?? '');
  if (msgType === 'interactive') {
    const elements = (content['elements'] ?? []) as Array<{ content?: string }>;
    return elements.map((element) => element.content ?? '').join('\n');
  }
  return '';
}

/** Encrypts an event as Feishu does for an app with an Encrypt Key: {"encrypt": ...}. */
export function encryptEvent(json: string, encryptKey: string): string {
  const key = createHash('sha256').update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return JSON.stringify({
    encrypt: Buffer.concat([iv, cipher.update(json, 'utf8'), cipher.final()]).toString('base64'),
  });
}

/** The signature headers of a webhook request body. */
export function signedHeaders(body: string, encryptKey: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomUUID();
  const signature = createHash('sha256')
    .update(timestamp + nonce + encryptKey + body)
    .digest('hex');
  return {
    'content-type': 'application/json',
    'x-lark-request-timestamp': timestamp,
    'x-lark-request-nonce': nonce,
    'x-lark-signature': signature,
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function startFakeFeishu(options: FakeFeishuOptions = {}): Promise<FakeFeishu> {
  const appId = options.appId ?? 'cli_a1b2c3d4e5f60718';
  let secret = options.appSecret ?? 'fake-app-secret-0001';
  const botOpenId = options.botOpenId ?? 'ou_fakebot0000000000000000000000';
  const tokens = new Map<string, number>();
  const messages = new Map<string, FakeFeishuSent | { chatId: string }>();
  const dmChats = new Map<string, string>();
  const resources = new Map<string, { bytes: Buffer; contentType: string }>();
  const byUuid = new Map<string, FakeFeishuSent>();
  const patchTimes = new Map<string, number[]>();
  const failures: Array<{
    pattern: RegExp;
    status: number;
    code: number;
    msg: string;
    headers: Record<string, string>;
  }> = [];
  const tickets = new Set<string>();
  const sockets = new Set<WebSocket>();
  const sent: FakeFeishuSent[] = [];
  const uploads: FakeFeishuUpload[] = [];
  const calls: Array<{ call: string; status: number }> = [];
  const acks: Array<{ frameId: string; code: number }> = [];
  let refusals: number[] = [];
  let pongs = true;
  let connects = 0;
  let pings = 0;
  let tokenRequests = 0;
  let counter = 0;
  let seq = 0;
  const next = (prefix: string): string => `${prefix}${(++counter).toString().padStart(6, '0')}`;

  const fail = (response: ServerResponse, status: number, code: number, msg: string): void =>
    sendJson(response, status, { code, msg });

  const api = async (request: IncomingMessage, response: ServerResponse, url: URL, body: Buffer) => {
    const json = (): Record<string, unknown> => parseJson(body.toString('utf8')) ?? {};
    const path = url.pathname;
    if (request.method === 'POST' && path === '/open-apis/auth/v3/tenant_access_token/internal') {
      tokenRequests += 1;
      const { app_id: id, app_secret: given } = json();
      if (id !== appId || given !== secret) return fail(response, 400, 10014, 'app secret invalid');
      const token = `t-${randomBytes(12).toString('hex')}`;
      const lifetime = options.tokenLifetimeSeconds ?? 7200;
      tokens.set(token, Date.now() + lifetime * 1000);
      return sendJson(response, 200, { code: 0, msg: 'ok', tenant_access_token: token, expire: lifetime });
    }
    if (request.method === 'POST' && path === '/callback/ws/endpoint') {
      const { AppID, AppSecret } = json();
      const refusal = refusals.shift();
      if (refusal !== undefined)
        return sendJson(response, 200, { code: refusal, msg: 'system busy', data: {} });
      if (AppID !== appId || AppSecret !== secret)
        return sendJson(response, 200, { code: 403, msg: 'forbidden' });
      const ticket = randomUUID();
      tickets.add(ticket);
      const { port } = server.address() as AddressInfo;
      return sendJson(response, 200, {
        code: 0,
        msg: 'ok',
        data: {
          URL: `ws://127.0.0.1:${port}/ws/v2?fpid=1&device_id=${next('d')}&service_id=${SERVICE_ID}&ticket=${ticket}`,
          ClientConfig: {
            PingInterval: options.pingIntervalSeconds ?? 120,
            ReconnectCount: -1,
            ReconnectInterval: 120,
            ReconnectNonce: 30,
          },
        },
      });
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if ((tokens.get(token) ?? 0) <= Date.now()) {
      return fail(response, 400, 99991663, 'Invalid access token for authorization.');
    }
    if (request.method === 'GET' && path === '/open-apis/bot/v3/info') {
      return sendJson(response, 200, {
        code: 0,
        msg: 'ok',
        bot: {
          activate_status: 2,
          app_name: BOT_NAME,
          avatar_url: '',
          ip_white_list: [],
          open_id: botOpenId,
        },
      });
    }
    if (
      request.method === 'POST' &&
      (path === '/open-apis/im/v1/images' || path === '/open-apis/im/v1/files')
    ) {
      const form = await new Response(body, {
        headers: { 'content-type': String(request.headers['content-type']) },
      }).formData();
      const image = path.endsWith('images');
      const file = form.get(image ? 'image' : 'file');
      const type = String(form.get(image ? 'image_type' : 'file_type') ?? '');
      if (typeof file === 'string' || file === null) return fail(response, 400, 234001, 'no file');
      if (
        image ? type !== 'message' : !['opus', 'mp4', 'pdf', 'doc', 'xls', 'ppt', 'stream'].includes(type)
      ) {
        return fail(response, 400, 234001, `bad ${image ? 'image_type' : 'file_type'}`);
      }
      const key = next(image ? 'img_v3_' : 'file_v3_');
      uploads.push({
        key,
        fileName: image ? file.name : String(form.get('file_name') ?? ''),
        type,
        bytes: Buffer.from(await file.arrayBuffer()),
      });
      return sendJson(response, 200, {
        code: 0,
        msg: 'success',
        data: image ? { image_key: key } : { file_key: key },
      });
    }
    const resource = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && resource) {
      const found = resources.get(`${resource[1]}/${resource[2]}`);
      if (!found || url.searchParams.get('type') !== 'image')
        return fail(response, 400, 234003, 'resource not found');
      response.writeHead(200, { 'content-type': found.contentType, 'content-length': found.bytes.length });
      return response.end(found.bytes);
    }
    const isSend = request.method === 'POST' && path === '/open-apis/im/v1/messages';
    const reply = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(path);
    const patch = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(path);
    if (isSend || (request.method === 'POST' && reply)) {
      const fields = json();
      const msgType = String(fields['msg_type'] ?? '');
      const content = parseJson(String(fields['content'] ?? ''));
      const uuid = typeof fields['uuid'] === 'string' ? fields['uuid'] : undefined;
      if (uuid && byUuid.has(uuid))
        return sendJson(response, 200, { code: 0, data: { message_id: byUuid.get(uuid)?.messageId } });
      if (!content || !['text', 'post', 'image', 'file', 'interactive'].includes(msgType)) {
        return fail(response, 400, 230001, 'invalid message content');
      }
      if (body.length > (msgType === 'text' ? 150 : 30) * 1024)
        return fail(response, 400, 230025, 'message too long');
      let chatId: string;
      const record: Partial<FakeFeishuSent> = {};
      if (reply) {
        const parent = messages.get(reply[1] ?? '');
        if (!parent) return fail(response, 400, 230011, 'the message to reply to is not found');
        chatId = parent.chatId;
        record.replyTo = reply[1] ?? '';
        record.replyInThread = fields['reply_in_thread'] === true;
      } else {
        const type = url.searchParams.get('receive_id_type') ?? '';
        const id = String(fields['receive_id'] ?? '');
        if (!['chat_id', 'open_id', 'union_id', 'user_id', 'email'].includes(type) || id === '') {
          return fail(response, 400, 230001, 'bad receive_id_type or receive_id');
        }
        chatId = type === 'chat_id' ? id : (dmChats.get(id) ?? id);
        record.receiveIdType = type;
      }
      const message: FakeFeishuSent = {
        messageId: next('om_bot'),
        chatId,
        msgType,
        content,
        edits: [],
        ...record,
      };
      sent.push(message);
      messages.set(message.messageId, message);
      if (uuid) byUuid.set(uuid, message);
      return sendJson(response, 200, {
        code: 0,
        msg: 'success',
        data: { message_id: message.messageId, chat_id: chatId },
      });
    }
    if (request.method === 'PATCH' && patch) {
      const target = messages.get(patch[1] ?? '');
      const content = parseJson(String(json()['content'] ?? ''));
      if (!target || !('msgType' in target) || target.msgType !== 'interactive' || !content) {
        return fail(response, 400, 230001, 'only cards the bot sent can be updated');
      }
      const shared = (card: Record<string, unknown>) =>
        (card['config'] as { update_multi?: unknown } | undefined)?.update_multi === true;
      if (!shared(target.content) || !shared(content))
        return fail(response, 400, 230099, 'not a shared card');
      if (body.length > 30 * 1024) return fail(response, 400, 230025, 'card too large');
      const now = Date.now();
      const recent = (patchTimes.get(target.messageId) ?? []).filter((at) => now - at < 1000);
      if (recent.length >= 5) return fail(response, 429, 230020, 'too many updates of this message');
      patchTimes.set(target.messageId, [...recent, now]);
      target.content = content;
      target.edits.push(textOfContent('interactive', content));
      return sendJson(response, 200, { code: 0, msg: 'success', data: {} });
    }
    return fail(response, 404, 404, 'not found');
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const call = `${request.method} ${url.pathname}`;
    response.on('finish', () => calls.push({ call, status: response.statusCode }));
    const failure = failures.findIndex((entry) => entry.pattern.test(call));
    if (failure >= 0) {
      const [entry] = failures.splice(failure, 1);
      response.writeHead(entry?.status ?? 500, { 'content-type': 'application/json', ...entry?.headers });
      response.end(JSON.stringify({ code: entry?.code, msg: entry?.msg }));
      return;
    }
    readBody(request)
      .then((body) => api(request, response, url, body))
      .catch(() => {
        if (!response.headersSent) fail(response, 500, 500, 'fake failed');
      });
  });

  const wss = new WebSocketServer({ noServer: true });
  const send = (socket: WebSocket, frame: FrameObject): void => {
    socket.send(Frame.encode(Frame.fromObject(frame)).finish());
  };
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/ws/v2' || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nhandshake-status: 403\r\nhandshake-msg: bad ticket\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      connects += 1;
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data: Buffer) => {
        const frame = Frame.toObject(Frame.decode(data), { longs: Number }) as FrameObject;
        const header = (key: string) => frame.headers?.find((entry) => entry.key === key)?.value;
        if (frame.method === CONTROL && header('type') === 'ping') {
          pings += 1;
          if (!pongs) return;
          const config = {
            PingInterval: options.pingIntervalSeconds ?? 120,
            ReconnectCount: -1,
            ReconnectInterval: 120,
            ReconnectNonce: 30,
          };
          send(ws, {
            SeqID: 0,
            LogID: 0,
            service: frame.service,
            method: CONTROL,
            headers: [{ key: 'type', value: 'pong' }],
            payload: Buffer.from(JSON.stringify(config)),
          });
        } else if (frame.method === DATA) {
          const answer = parseJson(Buffer.from(frame.payload ?? []).toString('utf8'));
          acks.push({ frameId: header('message_id') ?? '', code: Number(answer?.['code'] ?? -1) });
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeFeishu = {
    url: `http://127.0.0.1:${port}`,
    appId,
    botOpenId,
    sent,
    uploads,
    calls,
    acks,
    get connects() {
      return connects;
    },
    get liveSockets() {
      return sockets.size;
    },
    get pings() {
      return pings;
    },
    get tokenRequests() {
      return tokenRequests;
    },
    setSecret(value) {
      secret = value;
    },
    expireTokens() {
      tokens.clear();
    },
    refuseEndpoint(times, code = 1000040343) {
      refusals = Array.from({ length: times }, () => code);
    },
    answerPings(on) {
      pongs = on;
    },
    failNext(pattern, status, code, times = 1, extra = {}) {
      for (let i = 0; i < times; i++) {
        failures.push({
          pattern,
          status,
          code,
          msg: extra.msg ?? 'injected failure',
          headers: extra.headers ?? {},
        });
      }
    },
    addResource(messageId, fileKey, bytes, contentType) {
      resources.set(`${messageId}/${fileKey}`, { bytes, contentType });
    },
    messageEvent(message) {
      const messageId = message.messageId ?? next('om_user');
      messages.set(messageId, { chatId: message.chatId });
      if (message.chatType === 'p2p') dmChats.set(message.senderOpenId, message.chatId);
      const mentions = (message.mentions ?? []).map((entry) => ({
        key: entry.key,
        id: { open_id: entry.openId, union_id: `on_${entry.openId}`, user_id: entry.openId.slice(3) },
        name: entry.name,
        tenant_key: 'tenant',
      }));
      let messageType: string;
      let content: Record<string, unknown>;
      if (message.post) {
        messageType = 'post';
        content = message.post;
      } else if (message.imageKey) {
        messageType = 'image';
        content = { image_key: message.imageKey };
      } else {
        messageType = 'text';
        let text = message.text ?? '';
        if (text.includes('@bot')) {
          const key = `@_user_${mentions.length + 1}`;
          mentions.push({
            key,
            id: { open_id: botOpenId, union_id: 'on_bot', user_id: 'bot' },
            name: BOT_NAME,
            tenant_key: 'tenant',
          });
          text = text.replaceAll('@bot', key);
        }
        content = { text };
      }
      const now = String(Date.now());
      return {
        schema: '2.0',
        header: {
          event_id: message.eventId ?? randomUUID().replaceAll('-', ''),
          token: options.verificationToken ?? '',
          create_time: now,
          event_type: 'im.message.receive_v1',
          tenant_key: 'tenant',
          app_id: appId,
        },
        event: {
          sender: {
            sender_id: {
              open_id: message.senderOpenId,
              union_id: `on_${message.senderOpenId}`,
              user_id: 'u1',
            },
            sender_type: message.senderType ?? 'user',
            tenant_key: 'tenant',
          },
          message: {
            message_id: messageId,
            create_time: now,
            update_time: now,
            chat_id: message.chatId,
            ...(message.threadId ? { thread_id: message.threadId } : {}),
            chat_type: message.chatType,
            message_type: messageType,
            content: JSON.stringify(content),
            mentions,
            user_agent: 'fake',
          },
        },
      };
    },
    pushEvent(event, fragments = 1) {
      const payload = Buffer.from(JSON.stringify(event));
      const frameId = randomUUID();
      const size = Math.ceil(payload.length / fragments);
      for (const socket of sockets) {
        for (let part = 0; part < fragments; part++) {
          seq += 1;
          send(socket, {
            SeqID: seq,
            LogID: seq,
            service: SERVICE_ID,
            method: DATA,
            headers: [
              { key: 'type', value: 'event' },
              { key: 'message_id', value: frameId },
              { key: 'sum', value: String(fragments) },
              { key: 'seq', value: String(part) },
              { key: 'trace_id', value: randomUUID() },
            ],
            payload: payload.subarray(part * size, (part + 1) * size),
          });
        }
      }
      return frameId;
    },
    userSays(message) {
      const event = fake.messageEvent(message);
      fake.pushEvent(event);
      return event;
    },
    dropConnections() {
      for (const socket of sockets) socket.close(1001, 'going away');
    },
    textsIn(chatId) {
      return sent
        .filter((message) => message.chatId === chatId)
        .map((message) => textOfContent(message.msgType, message.content))
        .filter((text) => text !== '');
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
