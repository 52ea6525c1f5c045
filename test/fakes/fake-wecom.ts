// A fake WeCom on 127.0.0.1, for tests. One server speaks both modes:
// - the smart robot's long connection (WebSocket upgrade on any path), in the JSON frames the
//   @wecom/aibot-node-sdk sends ({cmd, headers: {req_id}, body}; receipts {headers, errcode, errmsg}):
//   aibot_subscribe, ping, aibot_msg_callback pushed to the bot, aibot_respond_msg stream frames,
//   aibot_send_msg, and the three-step media upload; images the fake sends are AES-256-CBC encrypted
//   downloads, as WeCom's are;
// - the app server API: gettoken, message/send, media/upload, media/get, plus callbacks signed and
//   encrypted as WeCom signs and encrypts them, to post to /webhooks/wecom/{accountId}.
// Everything the bot shows in a chat is kept in order (a stream message as last edited).
import { createCipheriv, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encrypt, getSignature } from '@wecom/crypto';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeWecomFrame {
  cmd?: string;
  headers: { req_id: string };
  body?: Record<string, unknown>;
  /** Which connection sent it (1 for the first). */
  connection: number;
}

export interface FakeWecomShown {
  chatId: string;
  kind: 'text' | 'image' | 'file';
  /** Text content, or the media's file name. */
  content: string;
  /** req_id and stream id of a stream message. */
  stream?: string;
  finished?: boolean;
}

export interface FakeWecomCall {
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  files: Record<string, { fileName: string; bytes: Buffer }>;
  /** The errcode answered. */
  errcode: number;
}

export interface FakeBotMessage {
  chatType: 'dm' | 'group';
  /** The group's chatid (a DM's chat is the sender). */
  chatId?: string;
  senderId: string;
  text?: string;
  messageId: string;
  /** Images the user attaches (plain bytes; the fake encrypts them). */
  images?: Buffer[];
}

export interface FakeAppMessage {
  senderId: string;
  messageId: string;
  text?: string;
  /** text (default), image (with mediaId) or event. */
  msgType?: 'text' | 'image' | 'event';
  mediaId?: string;
  agentId?: string;
}

export interface FakeAppCredentials {
  corpId: string;
  secret: string;
  agentId: string;
  token: string;
  encodingAesKey: string;
}

export interface SignedCallback {
  query: Record<string, string>;
  body: string;
}

export interface FakeWecomOptions {
  botId?: string;
  botSecrets?: string[];
  app?: Partial<FakeAppCredentials>;
}

export interface FakeWecom {
  /** The api_base of both modes: http://127.0.0.1:<port>. */
  readonly url: string;
  readonly botId: string;
  readonly app: FakeAppCredentials;
  /** Frames the clients sent, oldest first. */
  readonly frames: FakeWecomFrame[];
  /** App API calls, oldest first. */
  readonly calls: FakeWecomCall[];
  readonly shown: FakeWecomShown[];
  /** WebSocket connections opened so far. */
  readonly connections: number;
  /** Open, authenticated connections. */
  readonly live: number;
  /** Whether pings get their receipt (default true). */
  answerPings: boolean;
  /** From now on only these secrets authenticate; open connections are dropped. */
  setBotSecrets(secrets: string[]): void;
  /** Closes every connection, as a platform restart does. */
  dropConnections(): void;
  /** Tells every connection another one took over (disconnected_event), then closes it. */
  replaceConnections(): void;
  /** Pushes a message callback to the newest live connection; returns its req_id. */
  pushMessage(message: FakeBotMessage): string;
  /** Stream frames answering one callback, oldest first. */
  streamFrames(reqId: string): Array<{ id: string; finish: boolean; content: string }>;
  texts(chatId: string): string[];
  media(chatId: string): Array<'image' | 'file'>;
  /** App mode: the current secret (others get 40001). */
  setAppSecret(secret: string): void;
  /** App mode: every access token handed out so far is expired from now on. */
  expireTokens(): void;
  /** App mode: the next call of `path` answers this errcode. */
  failNext(path: string, errcode: number, errmsg?: string): void;
  /** App mode: a file WeCom holds, served by media/get; returns its media_id. */
  addMedia(bytes: Buffer, contentType?: string): string;
  callback(message: FakeAppMessage): SignedCallback;
  urlVerification(plain: string): Record<string, string>;
  close(): Promise<void>;
}

const ok = (reqId: string, body?: Record<string, unknown>): string =>
  JSON.stringify({ headers: { req_id: reqId }, errcode: 0, errmsg: 'ok', ...(body ? { body } : {}) });
const refuse = (reqId: string, errcode: number, errmsg: string): string =>
  JSON.stringify({ headers: { req_id: reqId }, errcode, errmsg });

/** AES-256-CBC with the IV taken from the key and PKCS#7 padding to 32 bytes, as WeCom encrypts files. */
function encryptFile(bytes: Buffer, key: Buffer): Buffer {
  const pad = 32 - (bytes.length % 32);
  const cipher = createCipheriv('aes-256-cbc', key, key.subarray(0, 16));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.concat([bytes, Buffer.alloc(pad, pad)])), cipher.final()]);
}

const cdata = (value: string): string => `<![CDATA[${value.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;

export async function startFakeWecom(options: FakeWecomOptions = {}): Promise<FakeWecom> {
  const botId = options.botId ?? 'fake-bot-id';
  let botSecrets = options.botSecrets ?? ['fake-bot-secret'];
  const app: FakeAppCredentials = {
    corpId: 'ww-fake-corp',
    secret: 'fake-app-secret',
    agentId: '1000002',
    token: 'fake-callback-token',
    encodingAesKey: randomBytes(32).toString('base64').slice(0, 43),
    ...options.app,
  };
  const frames: FakeWecomFrame[] = [];
  const calls: FakeWecomCall[] = [];
  const shown: FakeWecomShown[] = [];
  const sockets = new Map<WebSocket, { id: number; authenticated: boolean; reqIds: Set<string> }>();
  const chatOfReq = new Map<string, string>();
  const uploads = new Map<string, { chunks: Map<number, Buffer>; total: number; filename: string }>();
  const media = new Map<string, { bytes: Buffer; contentType: string; fileName: string }>();
  const downloads = new Map<string, Buffer>();
  const tokens = new Map<string, 'valid' | 'expired'>();
  const failures = new Map<string, Array<{ errcode: number; errmsg: string }>>();
  let connections = 0;
  let serial = 0;
  const next = (prefix: string): string => `${prefix}-${++serial}`;
  let url = '';

  const fake: FakeWecom = {
    get url() {
      return url;
    },
    botId,
    app,
    frames,
    calls,
    shown,
    get connections() {
      return connections;
    },
    get live() {
      return [...sockets.values()].filter((state) => state.authenticated).length;
    },
    answerPings: true,
    setBotSecrets(secrets) {
      botSecrets = [...secrets];
      fake.dropConnections();
    },
    dropConnections() {
      for (const socket of sockets.keys()) socket.terminate();
    },
    replaceConnections() {
      for (const socket of sockets.keys()) {
        const event = { msgid: next('msg'), msgtype: 'event', event: { eventtype: 'disconnected_event' } };
        socket.send(
          JSON.stringify({ cmd: 'aibot_event_callback', headers: { req_id: next('req') }, body: event }),
        );
        setTimeout(() => socket.close(), 20);
      }
    },
    pushMessage(message) {
      const target = [...sockets].filter(([, state]) => state.authenticated).at(-1);
      if (!target) throw new Error('fake wecom: no live connection to push to');
      const [socket, state] = target;
      const group = message.chatType === 'group';
      const chatId = group ? (message.chatId ?? 'group') : message.senderId;
      const images = (message.images ?? []).map((bytes) => {
        const key = randomBytes(32);
        const id = next('file');
        downloads.set(id, encryptFile(bytes, key));
        return { url: `${url}/download/${id}`, aeskey: key.toString('base64') };
      });
      const items = [
        ...(message.text !== undefined ? [{ msgtype: 'text', text: { content: message.text } }] : []),
        ...images.map((image) => ({ msgtype: 'image', image })),
      ];
      const content =
        items.length === 1
          ? { msgtype: items[0]?.msgtype, ...items[0] }
          : { msgtype: 'mixed', mixed: { msg_item: items } };
      const reqId = next('req');
      chatOfReq.set(reqId, chatId);
      state.reqIds.add(reqId);
      const body = {
        msgid: message.messageId,
        aibotid: botId,
        chattype: group ? 'group' : 'single',
        ...(group ? { chatid: chatId } : {}),
        from: { userid: message.senderId },
        create_time: Math.floor(Date.now() / 1000),
        ...content,
      };
      socket.send(JSON.stringify({ cmd: 'aibot_msg_callback', headers: { req_id: reqId }, body }));
      return reqId;
    },
    streamFrames(reqId) {
      return frames
        .filter((frame) => frame.cmd === 'aibot_respond_msg' && frame.headers.req_id === reqId)
        .map((frame) => {
          const stream = (frame.body?.['stream'] ?? {}) as {
            id?: unknown;
            finish?: unknown;
            content?: unknown;
          };
          return {
            id: String(stream.id),
            finish: stream.finish === true,
            content: String(stream.content ?? ''),
          };
        });
    },
    texts: (chatId) =>
      shown.filter((item) => item.chatId === chatId && item.kind === 'text').map((item) => item.content),
    media: (chatId) =>
      shown
        .filter((item) => item.chatId === chatId && item.kind !== 'text')
        .map((item) => item.kind as 'image' | 'file'),
    setAppSecret(secret) {
      app.secret = secret;
    },
    expireTokens() {
      for (const token of tokens.keys()) tokens.set(token, 'expired');
    },
    failNext(path, errcode, errmsg = 'system error') {
      failures.set(path, [...(failures.get(path) ?? []), { errcode, errmsg }]);
    },
    addMedia(bytes, contentType = 'image/png') {
      const id = next('media');
      media.set(id, { bytes, contentType, fileName: `${id}.bin` });
      return id;
    },
    callback(message) {
      const type = message.msgType ?? 'text';
      const fields = [
        `<ToUserName>${cdata(app.corpId)}</ToUserName>`,
        `<FromUserName>${cdata(message.senderId)}</FromUserName>`,
        `<CreateTime>${Math.floor(Date.now() / 1000)}</CreateTime>`,
        `<MsgType>${cdata(type)}</MsgType>`,
        type === 'text' ? `<Content>${cdata(message.text ?? '')}</Content>` : '',
        type === 'image'
          ? `<PicUrl>${cdata(`${url}/pic`)}</PicUrl><MediaId>${cdata(message.mediaId ?? '')}</MediaId>`
          : '',
        type === 'event' ? `<Event>${cdata('enter_agent')}</Event>` : `<MsgId>${message.messageId}</MsgId>`,
        `<AgentID>${message.agentId ?? app.agentId}</AgentID>`,
      ];
      const encrypted = encrypt(app.encodingAesKey, `<xml>${fields.join('')}</xml>`, app.corpId);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(6).toString('hex');
      return {
        query: { msg_signature: getSignature(app.token, timestamp, nonce, encrypted), timestamp, nonce },
        body: `<xml><ToUserName>${cdata(app.corpId)}</ToUserName><Encrypt>${cdata(encrypted)}</Encrypt><AgentID>${cdata(app.agentId)}</AgentID></xml>`,
      };
    },
    urlVerification(plain) {
      const echostr = encrypt(app.encodingAesKey, plain, app.corpId);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(6).toString('hex');
      return { msg_signature: getSignature(app.token, timestamp, nonce, echostr), timestamp, nonce, echostr };
    },
    async close() {
      for (const socket of sockets.keys()) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  // ---- the long connection ----
  const onFrame = (socket: WebSocket, frame: FakeWecomFrame): void => {
    const state = sockets.get(socket);
    if (!state) return;
    const reqId = frame.headers.req_id;
    const body = frame.body ?? {};
    if (frame.cmd === 'aibot_subscribe') {
      if (body['bot_id'] !== botId || !botSecrets.includes(String(body['secret']))) {
        socket.send(refuse(reqId, 40001, 'invalid bot_id or secret'));
        return;
      }
      state.authenticated = true;
      socket.send(ok(reqId));
      return;
    }
    if (!state.authenticated) {
      socket.send(refuse(reqId, 40003, 'not subscribed'));
      socket.close();
      return;
    }
    switch (frame.cmd ?? '') {
      case 'ping':
        if (fake.answerPings) socket.send(ok(reqId));
        return;
      case 'aibot_respond_msg': {
        const stream = body['stream'] as { id?: unknown; finish?: unknown; content?: unknown } | undefined;
        if (!state.reqIds.has(reqId)) return void socket.send(refuse(reqId, 40099, 'invalid req_id'));
        if (body['msgtype'] !== 'stream' || typeof stream?.id !== 'string' || stream.id === '') {
          return void socket.send(refuse(reqId, 40097, 'invalid stream'));
        }
        const content = String(stream.content ?? '');
        if (Buffer.byteLength(content) > 20480)
          return void socket.send(refuse(reqId, 40058, 'content too long'));
        const key = `${reqId}/${stream.id}`;
        let item = shown.find((entry) => entry.stream === key);
        if (item?.finished) return void socket.send(refuse(reqId, 40098, 'stream already finished'));
        if (!item) {
          item = { chatId: chatOfReq.get(reqId) ?? '', kind: 'text', content, stream: key };
          shown.push(item);
        }
        item.content = content;
        item.finished = stream.finish === true;
        socket.send(ok(reqId));
        return;
      }
      case 'aibot_send_msg': {
        const chatId = body['chatid'];
        const type = body['msgtype'];
        if (typeof chatId !== 'string' || chatId === '')
          return void socket.send(refuse(reqId, 40096, 'invalid chatid'));
        if (type === 'markdown') {
          const content = String((body['markdown'] as { content?: unknown } | undefined)?.content ?? '');
          if (content === '' || Buffer.byteLength(content) > 20480) {
            return void socket.send(refuse(reqId, 40058, 'invalid markdown content'));
          }
          shown.push({ chatId, kind: 'text', content });
        } else if (type === 'image' || type === 'file') {
          const id = String((body[type] as { media_id?: unknown } | undefined)?.media_id ?? '');
          const stored = media.get(id);
          if (!stored) return void socket.send(refuse(reqId, 40007, 'invalid media_id'));
          shown.push({ chatId, kind: type, content: stored.fileName });
        } else return void socket.send(refuse(reqId, 40008, 'invalid message type'));
        socket.send(ok(reqId, { msgid: next('sent') }));
        return;
      }
      case 'aibot_upload_media_init': {
        const uploadId = next('upload');
        uploads.set(uploadId, {
          chunks: new Map(),
          total: Number(body['total_chunks']),
          filename: String(body['filename'] ?? 'file'),
        });
        socket.send(ok(reqId, { upload_id: uploadId }));
        return;
      }
      case 'aibot_upload_media_chunk': {
        const upload = uploads.get(String(body['upload_id']));
        if (!upload) return void socket.send(refuse(reqId, 40095, 'invalid upload_id'));
        upload.chunks.set(
          Number(body['chunk_index']),
          Buffer.from(String(body['base64_data'] ?? ''), 'base64'),
        );
        socket.send(ok(reqId));
        return;
      }
      case 'aibot_upload_media_finish': {
        const upload = uploads.get(String(body['upload_id']));
        if (!upload || upload.chunks.size !== upload.total)
          return void socket.send(refuse(reqId, 40094, 'upload incomplete'));
        const bytes = Buffer.concat(
          [...upload.chunks.entries()].sort(([a], [b]) => a - b).map(([, chunk]) => chunk),
        );
        const id = next('media');
        media.set(id, { bytes, contentType: 'application/octet-stream', fileName: upload.filename });
        socket.send(
          ok(reqId, { type: 'file', media_id: id, created_at: String(Math.floor(Date.now() / 1000)) }),
        );
        return;
      }
      default:
        socket.send(refuse(reqId, 40000, `unknown cmd ${String(frame.cmd)}`));
    }
  };

  // ---- the app API ----
  const json = (response: ServerResponse, body: Record<string, unknown>): void => {
    const text = JSON.stringify(body);
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  };

  const appCall = async (
    call: FakeWecomCall,
    response: ServerResponse,
  ): Promise<Record<string, unknown> | void> => {
    const failure = failures.get(call.path)?.shift();
    if (failure) return failure;
    if (call.path === '/cgi-bin/gettoken') {
      if (call.query['corpid'] !== app.corpId) return { errcode: 40013, errmsg: 'invalid corpid' };
      if (call.query['corpsecret'] !== app.secret) return { errcode: 40001, errmsg: 'invalid credential' };
      const token = next('access-token');
      tokens.set(token, 'valid');
      return { errcode: 0, errmsg: 'ok', access_token: token, expires_in: 7200 };
    }
    const token = tokens.get(call.query['access_token'] ?? '');
    if (token !== 'valid')
      return token === 'expired'
        ? { errcode: 42001, errmsg: 'access_token expired' }
        : { errcode: 40014, errmsg: 'invalid access_token' };
    switch (call.path) {
      case '/cgi-bin/message/send': {
        const { touser, agentid, msgtype } = call.body;
        if (agentid !== Number(app.agentId)) return { errcode: 40056, errmsg: 'invalid agentid' };
        if (typeof touser !== 'string' || touser === '')
          return { errcode: 40031, errmsg: 'invalid user list' };
        if (msgtype === 'text') {
          const content = String((call.body['text'] as { content?: unknown } | undefined)?.content ?? '');
          if (content === '' || Buffer.byteLength(content) > 2048)
            return { errcode: 45002, errmsg: 'content size out of limit' };
          for (const user of touser.split('|')) shown.push({ chatId: user, kind: 'text', content });
        } else if (msgtype === 'image' || msgtype === 'file') {
          const stored = media.get(
            String((call.body[msgtype] as { media_id?: unknown } | undefined)?.media_id ?? ''),
          );
          if (!stored) return { errcode: 40007, errmsg: 'invalid media_id' };
          for (const user of touser.split('|'))
            shown.push({ chatId: user, kind: msgtype, content: stored.fileName });
        } else return { errcode: 40008, errmsg: 'invalid message type' };
        return { errcode: 0, errmsg: 'ok', invaliduser: '', msgid: next('msgid') };
      }
      case '/cgi-bin/media/upload': {
        const file = call.files['media'];
        if (!file || file.bytes.length <= 5) return { errcode: 40005, errmsg: 'invalid file' };
        const id = next('media');
        media.set(id, {
          bytes: file.bytes,
          contentType: 'application/octet-stream',
          fileName: file.fileName,
        });
        return { errcode: 0, errmsg: '', type: call.query['type'], media_id: id, created_at: '1380000000' };
      }
      case '/cgi-bin/media/get': {
        const stored = media.get(call.query['media_id'] ?? '');
        if (!stored) return { errcode: 40007, errmsg: 'invalid media_id' };
        response.writeHead(200, {
          'content-type': stored.contentType,
          'content-length': stored.bytes.length,
        });
        response.end(stored.bytes);
        return;
      }
      default:
        return { errcode: 40000, errmsg: 'unknown api' };
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const target = new URL(request.url ?? '/', 'http://fake');
    const download = /^\/download\/([\w-]+)$/.exec(target.pathname);
    if (download) {
      const bytes = downloads.get(download[1] ?? '');
      response.writeHead(bytes ? 200 : 404, { 'content-type': 'application/octet-stream' });
      response.end(bytes ?? '');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const contentType = String(request.headers['content-type'] ?? '');
    const call: FakeWecomCall = {
      path: target.pathname,
      query: Object.fromEntries(target.searchParams),
      body: {},
      files: {},
      errcode: 0,
    };
    if (contentType.startsWith('application/json'))
      call.body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    else if (contentType.startsWith('multipart/form-data')) {
      const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
      for (const [name, value] of form.entries()) {
        if (typeof value === 'string') call.body[name] = value;
        else call.files[name] = { fileName: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
      }
    }
    calls.push(call);
    const answer = await appCall(call, response);
    if (answer) {
      call.errcode = Number(answer['errcode'] ?? 0);
      json(response, answer);
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) json(response, { errcode: -1, errmsg: 'system error' });
    });
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    connections += 1;
    sockets.set(socket, { id: connections, authenticated: false, reqIds: new Set() });
    socket.on('message', (data) => {
      let frame: FakeWecomFrame;
      try {
        const parsed = JSON.parse(String(data)) as Omit<FakeWecomFrame, 'connection'>;
        frame = { ...parsed, connection: sockets.get(socket)?.id ?? 0 };
      } catch {
        return;
      }
      frames.push(frame);
      onFrame(socket, frame);
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
