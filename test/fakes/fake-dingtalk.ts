// A fake DingTalk on 127.0.0.1, for tests: the Stream gateway (connections/open, then a WebSocket
// speaking the real frame format and checking every ACK), the access token, the robot send APIs, the
// sessionWebhooks of the messages it pushes, AI card create-and-deliver and streaming, the old API's
// media upload and the download of pictures users sent. Everything the bot shows is recorded per chat.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const TOPIC_ROBOT = '/v1.0/im/bot/messages/get';

export interface FakeDingTalkCall {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The x-acs-dingtalk-access-token header (or the old API's access_token query). */
  token?: string | undefined;
  body: Record<string, unknown>;
  files: Record<string, { fileName: string; bytes: Buffer }>;
  at: number;
}

export interface FakeDingTalkSent {
  chatId: string;
  kind: 'text' | 'image' | 'file';
  via: 'webhook' | 'api';
  /** Markdown text, image photoURL, or file name. */
  content: string;
  msgKey?: string;
  params: Record<string, unknown>;
}

export interface FakeDingTalkCard {
  outTrackId: string;
  chatId: string;
  templateId: string;
  /** Streaming updates in the order they arrived. */
  updates: Array<{ key: string; content: string; isFull: boolean; isFinalize: boolean }>;
}

export interface FakeDingTalkAck {
  messageId: string;
  code: number;
  message: string;
  data: string;
}

export interface FakeRobotMessage {
  chatType: 'dm' | 'group';
  /** The sender's user id (staff id). */
  sender: string;
  text?: string;
  /** A group's openConversationId (default cidGroup1==). */
  conversationId?: string;
  msgId?: string;
  /** Pictures sent with the text (a richText message), or alone (a picture message). */
  pictures?: Array<{ bytes: Buffer; contentType?: string }>;
  /** Lifetime of the sessionWebhook from now, in ms (default 90 minutes; negative: already expired). */
  webhookTtlMs?: number;
  /** Raw fields merged into the robot message. */
  extra?: Record<string, unknown>;
}

export interface FakeDingTalkOptions {
  clientId: string;
  clientSecret: string;
  /** Lifetime of an access token, in seconds (default 7200). */
  tokenTtlSeconds?: number;
  /** Time between a SYSTEM disconnect and the platform closing the socket, in ms (default 10000). */
  disconnectGraceMs?: number;
}

interface Live {
  socket: WebSocket;
  id: string;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readCall(request: IncomingMessage): Promise<FakeDingTalkCall> {
  const url = new URL(request.url ?? '/', 'http://fake');
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = String(request.headers['content-type'] ?? '');
  const call: FakeDingTalkCall = {
    method: request.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    token:
      (request.headers['x-acs-dingtalk-access-token'] as string | undefined) ??
      url.searchParams.get('access_token') ??
      undefined,
    body: {},
    files: {},
    at: Date.now(),
  };
  if (raw.length > 0 && type.startsWith('application/json')) call.body = JSON.parse(raw.toString('utf8'));
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') call.body[name] = value;
      else call.files[name] = { fileName: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
    }
  }
  return call;
}

export type FakeDingTalk = Awaited<ReturnType<typeof startFakeDingTalk>>;

export async function startFakeDingTalk(options: FakeDingTalkOptions) {
  let secret = options.clientSecret;
  const calls: FakeDingTalkCall[] = [];
  const sent: FakeDingTalkSent[] = [];
  const cards: FakeDingTalkCard[] = [];
  const acks: FakeDingTalkAck[] = [];
  /** ACKs that do not follow the protocol (wrong shape or unknown message id). */
  const badAcks: string[] = [];
  const tokens = new Map<string, number>();
  const tickets = new Map<string, number>();
  const sessions = new Map<string, { chatId: string; expiresAt: number }>();
  const downloads = new Map<string, { bytes: Buffer; contentType: string }>();
  const media = new Map<string, { type: string; fileName: string; bytes: Buffer }>();
  const failures = new Map<string, Array<{ status: number; body: unknown }>>();
  const frames = new Map<string, string>();
  const pending: string[] = [];
  const live = new Set<Live>();
  let gatewayCalls = 0;
  let socketsOpened = 0;
  let nextId = 1;
  const id = (prefix: string): string => `${prefix}${nextId++}`;

  // Pongs are sent by hand, so a test can make the platform stop answering (a half-open connection).
  const wss = new WebSocketServer({ noServer: true, autoPong: false });
  let answerPings = true;
  const sendFrame = (text: string): void => {
    const newest = [...live].at(-1);
    if (newest) newest.socket.send(text);
    else pending.push(text);
  };

  const refuse = (response: ServerResponse, status: number, code: string, message: string): void =>
    sendJson(response, status, { code, message, requestid: randomUUID() });

  /** Records a message the bot sent through the API or a sessionWebhook. */
  const record = (
    chatId: string,
    via: 'webhook' | 'api',
    msgKey: string,
    params: Record<string, unknown>,
  ): boolean => {
    if (msgKey === 'sampleMarkdown' || msgKey === 'sampleText') {
      const content = String(params['text'] ?? params['content'] ?? '');
      if (content === '') return false;
      sent.push({ chatId, kind: 'text', via, content, msgKey, params });
    } else if (msgKey === 'sampleImageMsg') {
      if (typeof params['photoURL'] !== 'string') return false;
      sent.push({ chatId, kind: 'image', via, content: params['photoURL'], msgKey, params });
    } else if (msgKey === 'sampleFile') {
      if (typeof params['mediaId'] !== 'string' || typeof params['fileName'] !== 'string') return false;
      sent.push({ chatId, kind: 'file', via, content: params['fileName'], msgKey, params });
    } else return false;
    return true;
  };

  const api = (call: FakeDingTalkCall, response: ServerResponse): void => {
    const body = call.body;
    const route = `${call.method} ${call.path}`;
    if (route === 'POST /v1.0/gateway/connections/open') {
      if (body['clientId'] !== options.clientId || body['clientSecret'] !== secret) {
        return refuse(
          response,
          401,
          'InvalidAuthentication',
          `clientSecret ${String(body['clientSecret'])} is not valid`,
        );
      }
      const subscriptions = body['subscriptions'] as Array<{ type?: string; topic?: string }> | undefined;
      if (!subscriptions?.some((s) => s.type === 'CALLBACK' && s.topic === TOPIC_ROBOT)) {
        return refuse(response, 400, 'InvalidParameter', 'no robot subscription');
      }
      const ticket = randomUUID();
      tickets.set(ticket, Date.now() + 90_000);
      return sendJson(response, 200, { endpoint: `${url.replace('http', 'ws')}/connect`, ticket });
    }
    if (route === 'POST /v1.0/oauth2/accessToken') {
      if (body['appKey'] !== options.clientId || body['appSecret'] !== secret) {
        return refuse(
          response,
          400,
          'invalidClientSecret',
          `appSecret ${String(body['appSecret'])} is wrong`,
        );
      }
      const token = id('token-');
      const ttl = options.tokenTtlSeconds ?? 7200;
      tokens.set(token, Date.now() + ttl * 1000);
      return sendJson(response, 200, { accessToken: token, expireIn: ttl });
    }
    if (route === 'POST /robot/sendBySession') {
      const session = sessions.get(call.query['session'] ?? '');
      if (!session || session.expiresAt <= Date.now()) {
        return sendJson(response, 200, { errcode: 300005, errmsg: 'session is expired' });
      }
      const type = String(body['msgtype']);
      const ok = record(
        session.chatId,
        'webhook',
        type === 'markdown' ? 'sampleMarkdown' : 'sampleText',
        (type === 'markdown' ? body['markdown'] : body['text']) as Record<string, unknown>,
      );
      return sendJson(
        response,
        200,
        ok ? { errcode: 0, errmsg: 'ok' } : { errcode: 400, errmsg: 'bad message' },
      );
    }
    const valid = call.token !== undefined && (tokens.get(call.token) ?? 0) > Date.now();
    if (route === 'POST /media/upload') {
      if (!valid)
        return sendJson(response, 200, { errcode: 40014, errmsg: `invalid access_token ${call.token}` });
      const file = call.files['media'];
      if (!file || (call.query['type'] !== 'image' && call.query['type'] !== 'file')) {
        return sendJson(response, 200, { errcode: 40004, errmsg: 'invalid media' });
      }
      const mediaId = `@lADP${id('media')}`;
      media.set(mediaId, { type: call.query['type'], ...file });
      return sendJson(response, 200, {
        errcode: 0,
        errmsg: 'ok',
        media_id: mediaId,
        type: call.query['type'],
        created_at: Date.now(),
      });
    }
    if (!valid) return refuse(response, 401, 'InvalidAuthentication', `不合法的access_token ${call.token}`);
    if (body['robotCode'] !== undefined && body['robotCode'] !== options.clientId) {
      return refuse(response, 400, 'robot.notExist', 'robot does not exist');
    }
    switch (route) {
      case 'POST /v1.0/robot/groupMessages/send':
      case 'POST /v1.0/robot/oToMessages/batchSend': {
        const group = route.includes('group');
        const targets = group ? [String(body['openConversationId'])] : ((body['userIds'] as string[]) ?? []);
        if (group && !targets[0]?.startsWith('cid'))
          return refuse(response, 400, 'InvalidParameter', 'bad openConversationId');
        let params: Record<string, unknown>;
        try {
          params = JSON.parse(String(body['msgParam'])) as Record<string, unknown>;
        } catch {
          return refuse(response, 400, 'InvalidParameter', 'msgParam is not JSON');
        }
        const invalid = targets.filter((target) => target.startsWith('nobody'));
        for (const target of targets.filter((target) => !invalid.includes(target))) {
          if (!record(target, 'api', String(body['msgKey']), params))
            return refuse(response, 400, 'InvalidParameter', 'bad msgParam');
        }
        return sendJson(response, 200, {
          processQueryKey: id('query-'),
          ...(group ? {} : { invalidStaffIdList: invalid, flowControlledStaffIdList: [] }),
        });
      }
      case 'POST /v1.0/card/instances/createAndDeliver': {
        const space = /^dtv1\.card\/\/(IM_GROUP|IM_ROBOT)\.(.+)$/.exec(String(body['openSpaceId']));
        const model =
          space?.[1] === 'IM_GROUP' ? body['imGroupOpenDeliverModel'] : body['imRobotOpenDeliverModel'];
        if (
          !space ||
          typeof body['cardTemplateId'] !== 'string' ||
          typeof body['outTrackId'] !== 'string' ||
          !model
        ) {
          return refuse(response, 400, 'InvalidParameter', 'bad card');
        }
        cards.push({
          outTrackId: body['outTrackId'],
          chatId: space[2] ?? '',
          templateId: body['cardTemplateId'],
          updates: [],
        });
        return sendJson(response, 200, {
          success: true,
          result: {
            outTrackId: body['outTrackId'],
            deliverResults: [{ success: true, spaceType: space[1], spaceId: space[2] }],
          },
        });
      }
      case 'PUT /v1.0/card/streaming': {
        const card = cards.find((known) => known.outTrackId === body['outTrackId']);
        if (
          !card ||
          card.updates.at(-1)?.isFinalize ||
          typeof body['content'] !== 'string' ||
          typeof body['guid'] !== 'string'
        ) {
          return refuse(response, 400, 'InvalidParameter', 'bad streaming update');
        }
        card.updates.push({
          key: String(body['key']),
          content: body['content'],
          isFull: body['isFull'] === true,
          isFinalize: body['isFinalize'] === true,
        });
        return sendJson(response, 200, { success: true, result: true });
      }
      case 'POST /v1.0/robot/messageFiles/download': {
        const code = String(body['downloadCode']);
        if (!downloads.has(code)) return refuse(response, 400, 'InvalidParameter', 'unknown downloadCode');
        return sendJson(response, 200, { downloadUrl: `${url}/download/${encodeURIComponent(code)}` });
      }
      default:
        return refuse(response, 404, 'NotFound', `no route ${route}`);
    }
  };

  const server = createServer((request, response) => {
    void (async () => {
      if (request.method === 'GET' && request.url?.startsWith('/download/')) {
        const file = downloads.get(decodeURIComponent(request.url.slice('/download/'.length)));
        if (!file) return sendJson(response, 404, {});
        response.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.length });
        return void response.end(file.bytes);
      }
      const call = await readCall(request);
      calls.push(call);
      if (call.path === '/v1.0/gateway/connections/open') gatewayCalls += 1;
      const failure = failures.get(call.path)?.shift();
      if (failure) return sendJson(response, failure.status, failure.body);
      api(call, response);
    })().catch(() => {
      if (!response.headersSent) sendJson(response, 500, { code: 'InternalError', message: 'fake failed' });
    });
  });
  server.on('upgrade', (request, socket, head) => {
    const query = new URL(request.url ?? '/', 'http://fake');
    const ticket = query.searchParams.get('ticket') ?? '';
    const expires = tickets.get(ticket);
    tickets.delete(ticket);
    if (query.pathname !== '/connect' || expires === undefined || expires < Date.now()) {
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      socketsOpened += 1;
      const connection: Live = { socket: ws, id: id('conn-') };
      live.add(connection);
      ws.on('close', () => live.delete(connection));
      ws.on('ping', (data) => {
        if (answerPings) ws.pong(data);
      });
      ws.on('message', (data) => {
        try {
          const ack = JSON.parse(String(data)) as Record<string, unknown>;
          const headers = ack['headers'] as Record<string, unknown> | undefined;
          const messageId = String(headers?.['messageId']);
          if (
            typeof ack['code'] !== 'number' ||
            typeof ack['data'] !== 'string' ||
            typeof ack['message'] !== 'string' ||
            headers?.['contentType'] !== 'application/json' ||
            !frames.has(messageId)
          ) {
            badAcks.push(String(data));
            return;
          }
          acks.push({ messageId, code: ack['code'], message: ack['message'], data: ack['data'] });
        } catch {
          badAcks.push(String(data));
        }
      });
      for (const frame of pending.splice(0)) ws.send(frame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const frame = (type: string, topic: string, data: unknown, messageId = id('frame-')): string => {
    const text = JSON.stringify({
      specVersion: '1.0',
      type,
      headers: {
        appId: 'fake-app',
        contentType: 'application/json',
        messageId,
        time: String(Date.now()),
        topic,
      },
      data: JSON.stringify(data),
    });
    frames.set(messageId, text);
    return text;
  };

  async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`fake dingtalk: timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  return {
    /** The api_base to configure: http://127.0.0.1:<port>. */
    url,
    calls,
    sent,
    cards,
    acks,
    badAcks,
    media,
    get liveConnections() {
      return live.size;
    },
    /** Calls of connections/open, accepted or not. */
    get gatewayCalls() {
      return gatewayCalls;
    },
    get socketsOpened() {
      return socketsOpened;
    },
    callsTo(path: string): FakeDingTalkCall[] {
      return calls.filter((call) => call.path === path);
    },
    /** What the bot shows in a chat, oldest first: texts sent, and each card as last streamed. */
    textsIn(chatId: string): string[] {
      return [
        ...sent
          .filter((entry) => entry.chatId === chatId && entry.kind === 'text')
          .map((entry) => entry.content),
        ...cards.filter((card) => card.chatId === chatId).map((card) => card.updates.at(-1)?.content ?? ''),
      ];
    },
    /** A user's message to the robot, pushed as a CALLBACK frame; returns the frame's messageId. */
    pushMessage(message: FakeRobotMessage): string {
      const group = message.chatType === 'group';
      const conversationId = group ? (message.conversationId ?? 'cidGroup1==') : `cidDM${message.sender}`;
      const session = id('session-');
      const expiresAt = Date.now() + (message.webhookTtlMs ?? 90 * 60_000);
      sessions.set(session, { chatId: group ? conversationId : message.sender, expiresAt });
      const pictures = (message.pictures ?? []).map((picture) => {
        const code = id('download-code-');
        downloads.set(code, {
          bytes: picture.bytes,
          contentType: picture.contentType ?? 'application/octet-stream',
        });
        return code;
      });
      const content =
        pictures.length === 0
          ? { msgtype: 'text', text: { content: group ? ` ${message.text ?? ''}` : (message.text ?? '') } }
          : message.text === undefined && pictures.length === 1
            ? { msgtype: 'picture', content: { downloadCode: pictures[0], pictureDownloadCode: 'unused' } }
            : {
                msgtype: 'richText',
                content: {
                  richText: [
                    ...(message.text === undefined ? [] : [{ text: message.text }]),
                    ...pictures.map((code) => ({
                      type: 'picture',
                      downloadCode: code,
                      pictureDownloadCode: 'unused',
                    })),
                  ],
                },
              };
      const data = {
        conversationId,
        conversationType: group ? '2' : '1',
        ...(group ? { conversationTitle: 'Test group', isInAtList: true } : {}),
        chatbotCorpId: 'dingcorp',
        chatbotUserId: '$:LWCP_v1:$robot',
        msgId: message.msgId ?? id('msg'),
        senderNick: 'User',
        isAdmin: false,
        senderStaffId: message.sender,
        senderId: `$:LWCP_v1:$${message.sender}`,
        senderCorpId: 'dingcorp',
        sessionWebhook: `${url}/robot/sendBySession?session=${session}`,
        sessionWebhookExpiredTime: expiresAt,
        createAt: Date.now(),
        robotCode: options.clientId,
        ...content,
        ...message.extra,
      };
      const messageId = id('frame-');
      sendFrame(frame('CALLBACK', TOPIC_ROBOT, data, messageId));
      return messageId;
    },
    /** Sends a frame as it is (to send malformed frames). */
    pushRaw(text: string): void {
      sendFrame(text);
    },
    /** Sends a pushed frame again, unchanged (a redelivery). */
    redeliver(messageId: string): void {
      const text = frames.get(messageId);
      if (text) sendFrame(text);
    },
    /** A SYSTEM ping; resolves with the client's answer. */
    async ping(): Promise<FakeDingTalkAck> {
      const messageId = id('ping-');
      sendFrame(frame('SYSTEM', 'ping', { opaque: `opaque-${messageId}` }, messageId));
      await until(() => acks.some((ack) => ack.messageId === messageId), 'the ping answer');
      return acks.find((ack) => ack.messageId === messageId) as FakeDingTalkAck;
    },
    /** Announces a disconnect on every connection, and closes them after the grace period. */
    systemDisconnect(): void {
      for (const connection of live) {
        connection.socket.send(frame('SYSTEM', 'disconnect', { reason: 'connection is expired' }));
        setTimeout(() => connection.socket.terminate(), options.disconnectGraceMs ?? 10_000).unref();
      }
    },
    /** WebSocket pings go unanswered from now on (a connection that silently died). */
    stopAnsweringPings(): void {
      answerPings = false;
    },
    /** The platform drops every connection at once (a restart). */
    dropConnections(): void {
      for (const connection of live) connection.socket.terminate();
    },
    /** From now on only this secret is accepted; issued tokens stay valid until they expire. */
    setSecret(value: string): void {
      secret = value;
    },
    /** Every issued access token stops working (revoked or expired early). */
    expireTokens(): void {
      tokens.clear();
    },
    /** The next `times` calls to `path` are answered with `status` and `body`. */
    failNext(
      path: string,
      status: number,
      times = 1,
      body: unknown = { code: 'ServiceUnavailable', message: 'try later' },
    ): void {
      const list = failures.get(path) ?? [];
      for (let i = 0; i < times; i++) list.push({ status, body });
      failures.set(path, list);
    },
    until,
    async close(): Promise<void> {
      for (const connection of live) connection.socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
