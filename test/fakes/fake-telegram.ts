// A fake Telegram Bot API server on 127.0.0.1, for tests: records every call (JSON, form or
// multipart), serves getUpdates from a queue with long-poll semantics, and fails on demand.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeTelegramFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export interface FakeTelegramCall {
  token: string;
  method: string;
  /** Content type of the request body as sent. */
  contentType: string;
  /** Fields of the request (JSON body or the text parts of a form). */
  params: Record<string, unknown>;
  /** File parts of a multipart body, by field name. */
  files: Record<string, FakeTelegramFile>;
  /** The result answered to a successful send call. */
  result?: Record<string, unknown>;
  /** When the call arrived (Date.now()). */
  at: number;
}

export interface FakeTelegramMessage {
  chatId: number | string;
  chatType?: 'private' | 'group' | 'supergroup' | 'channel';
  fromId?: number;
  fromBot?: boolean;
  text?: string;
  /** Only the bot with this token receives it (default: whichever bot polls first). */
  token?: string;
  /** The message_id (default: the update id); a repeat imitates a redelivery. */
  messageId?: number;
}

interface Failure {
  status: number;
  description: string;
  retryAfter?: number;
}

interface Poll {
  offset: number;
  answer: () => void;
}

export interface FakeTelegram {
  /** The api_base to configure: http://127.0.0.1:<port>. */
  readonly url: string;
  readonly calls: FakeTelegramCall[];
  /** getUpdates requests being held open right now. */
  readonly openPolls: number;
  /** Queues a message update; returns its update_id. */
  pushMessage(message: FakeTelegramMessage): number;
  /** Queues what `build` makes of the next update_id, sent as it is (to send malformed updates). */
  pushRaw(build: (updateId: number) => unknown): number;
  /** The next `times` calls of `method` fail with `status` (429 carries retry_after). */
  failNext(
    method: string,
    status: number,
    times?: number,
    options?: { description?: string; retryAfter?: number },
  ): void;
  /** From now on only these tokens are accepted (a token revoked in BotFather). */
  setTokens(tokens: string[]): void;
  /** Calls of one method, oldest first. */
  callsOf(method: string): FakeTelegramCall[];
  /** Resolves when `count` calls of `method` have been seen (rejects after timeoutMs). */
  waitForCalls(method: string, count: number, timeoutMs?: number): Promise<FakeTelegramCall[]>;
  close(): Promise<void>;
}

export interface FakeTelegramOptions {
  /** Tokens that are accepted; others get 401 (default: any token). */
  tokens?: string[];
  /** Longest hold of a getUpdates call, in ms, whatever its timeout asks (default 30000). */
  maxHoldMs?: number;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseRequest(
  contentType: string,
  body: Buffer,
): Promise<{ params: Record<string, unknown>; files: Record<string, FakeTelegramFile> }> {
  const params: Record<string, unknown> = {};
  const files: Record<string, FakeTelegramFile> = {};
  if (body.length === 0) return { params, files };
  if (contentType.startsWith('application/json')) {
    return { params: JSON.parse(body.toString('utf8')) as Record<string, unknown>, files };
  }
  if (
    contentType.startsWith('multipart/form-data') ||
    contentType.startsWith('application/x-www-form-urlencoded')
  ) {
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') params[name] = value;
      else {
        files[name] = {
          fileName: value.name,
          contentType: value.type,
          bytes: Buffer.from(await value.arrayBuffer()),
        };
      }
    }
  }
  return { params, files };
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  let accepted = options.tokens ? [...options.tokens] : undefined;
  const calls: FakeTelegramCall[] = [];
  const updates: Array<{ update_id: number; message: unknown; token?: string | undefined; raw?: unknown }> =
    [];
  const failures = new Map<string, Failure[]>();
  const polls = new Set<Poll>();
  const waiters = new Set<() => void>();
  let nextUpdateId = 1000;
  let nextMessageId = 1;

  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  const pending = (offset: number, token: string) =>
    updates
      .filter(
        (update) => update.update_id >= offset && (update.token === undefined || update.token === token),
      )
      .map(({ update_id, message, raw }) => (raw !== undefined ? raw : { update_id, message }));

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec((request.url ?? '').split('?')[0] ?? '');
    if (!match) return sendJson(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const token = decodeURIComponent(match[1] ?? '');
    const method = match[2] ?? '';
    const contentType = String(request.headers['content-type'] ?? '');
    let parsed;
    try {
      parsed = await parseRequest(contentType, await readBody(request));
    } catch {
      return sendJson(response, 400, { ok: false, error_code: 400, description: 'Bad Request: bad body' });
    }
    const call: FakeTelegramCall = { token, method, contentType, ...parsed, at: Date.now() };
    calls.push(call);
    notify();
    if (accepted && !accepted.includes(token)) {
      return sendJson(response, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    }
    const failure = failures.get(method)?.shift();
    if (failure) {
      return sendJson(response, failure.status, {
        ok: false,
        error_code: failure.status,
        description: failure.description,
        ...(failure.retryAfter !== undefined ? { parameters: { retry_after: failure.retryAfter } } : {}),
      });
    }
    const chatId = call.params['chat_id'];
    switch (method) {
      case 'getUpdates': {
        const offset = Number(call.params['offset'] ?? 0);
        // Confirmed updates are forgotten, as Telegram does.
        for (let i = updates.length - 1; i >= 0; i--) {
          const update = updates[i];
          if (update && update.update_id < offset && (update.token === undefined || update.token === token)) {
            updates.splice(i, 1);
          }
        }
        const ready = pending(offset, token);
        const holdMs = Math.min(Number(call.params['timeout'] ?? 0) * 1000, options.maxHoldMs ?? 30_000);
        if (ready.length > 0 || holdMs <= 0) return sendJson(response, 200, { ok: true, result: ready });
        await new Promise<void>((resolve) => {
          const poll: Poll = { offset, answer: () => resolve() };
          polls.add(poll);
          const timer = setTimeout(() => poll.answer(), holdMs);
          const waiter = (): void => {
            if (pending(offset, token).length > 0) poll.answer();
          };
          waiters.add(waiter);
          poll.answer = () => {
            clearTimeout(timer);
            waiters.delete(waiter);
            polls.delete(poll);
            resolve();
          };
          response.on('close', () => poll.answer());
        });
        if (response.destroyed || response.writableEnded) return;
        return sendJson(response, 200, { ok: true, result: pending(offset, token) });
      }
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendDocument': {
        if (chatId === undefined || chatId === '') {
          return sendJson(response, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: chat_id is empty',
          });
        }
        const result: Record<string, unknown> = {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId },
        };
        if (method === 'sendMessage') {
          const text = call.params['text'];
          if (typeof text !== 'string' || text.length === 0 || text.length > 4096) {
            return sendJson(response, 400, {
              ok: false,
              error_code: 400,
              description: 'Bad Request: bad text',
            });
          }
          result['text'] = text;
        } else {
          const field = method === 'sendPhoto' ? 'photo' : 'document';
          if (!call.files[field] && typeof call.params[field] !== 'string') {
            return sendJson(response, 400, {
              ok: false,
              error_code: 400,
              description: `Bad Request: no ${field}`,
            });
          }
          result[field] = { file_id: `file-${result['message_id']}` };
        }
        call.result = result;
        return sendJson(response, 200, { ok: true, result });
      }
      default:
        return sendJson(response, 404, {
          ok: false,
          error_code: 404,
          description: 'Not Found: method not found',
        });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent)
        sendJson(response, 500, { ok: false, error_code: 500, description: 'fake failed' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get openPolls() {
      return polls.size;
    },
    pushRaw(build) {
      const updateId = nextUpdateId++;
      updates.push({ update_id: updateId, message: undefined, raw: build(updateId) });
      notify();
      return updateId;
    },
    setTokens(tokens) {
      accepted = [...tokens];
    },
    pushMessage(message) {
      const updateId = nextUpdateId++;
      const chatType = message.chatType ?? 'private';
      updates.push({
        update_id: updateId,
        token: message.token,
        message: {
          message_id: message.messageId ?? updateId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: message.chatId, type: chatType },
          from: {
            id: message.fromId ?? Number(message.chatId),
            is_bot: message.fromBot ?? false,
            first_name: 'T',
          },
          ...(message.text !== undefined ? { text: message.text } : {}),
        },
      });
      notify();
      return updateId;
    },
    failNext(method, status, times = 1, extra = {}) {
      const list = failures.get(method) ?? [];
      for (let i = 0; i < times; i++) {
        list.push({
          status,
          description: extra.description ?? (status === 429 ? 'Too Many Requests' : 'Internal Server Error'),
          ...(extra.retryAfter !== undefined || status === 429 ? { retryAfter: extra.retryAfter ?? 0 } : {}),
        });
      }
      failures.set(method, list);
    },
    callsOf(method) {
      return calls.filter((call) => call.method === method);
    },
    waitForCalls(method, count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const seen = calls.filter((call) => call.method === method);
          if (seen.length < count) return false;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(seen);
          return true;
        };
        const waiter = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `fake telegram: saw ${calls.filter((c) => c.method === method).length} of ${count} ${method} calls`,
            ),
          );
        }, timeoutMs);
        waiters.add(waiter);
        check();
      });
    },
    async close() {
      for (const poll of [...polls]) poll.answer();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
