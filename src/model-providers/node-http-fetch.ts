// A fetch (for the embeddings client) and a plain POST of a streamed answer (for chat calls) over
// node:http(s) with keep-alive agents. Node's built-in fetch costs
// about a third more CPU per model call, and a model call is most of an agent turn's overhead.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 512 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 512 }),
};

/** The module and keep-alive agent for a URL's protocol; a TypeError for anything but http(s). */
function transportFor(url: URL): { request: typeof http.request; agent: http.Agent } {
  if (url.protocol === 'https:') return { request: https.request, agent: agents['https:'] };
  if (url.protocol === 'http:') return { request: http.request, agent: agents['http:'] };
  throw new TypeError(`unsupported protocol ${url.protocol}`);
}

/** A response's headers as name/value pairs, a repeated header's values joined as fetch does. */
function headerPairs(response: IncomingMessage): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) pairs.push([name, Array.isArray(value) ? value.join(', ') : value]);
  }
  return pairs;
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  // A plain record of strings (chat-request.ts) goes as it is.
  if (headers && !(headers instanceof Headers) && !Array.isArray(headers))
    return headers as Record<string, string>;
  const out: Record<string, string> = {};
  // The SDK passes a Headers object; copying it into another one first would cost a second pass.
  (headers instanceof Headers ? headers : new Headers(headers)).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function bodyOf(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('node-http-fetch: only string and byte bodies are supported');
}

/**
 * The response body as a web stream. Readable.toWeb does the same with backpressure and costs
 * several times more per call; a model response is small and read as fast as it arrives, and the
 * socket itself applies TCP flow control.
 */
function webBody(response: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let settled = false;
      const settle = (error?: Error): void => {
        if (settled) return;
        settled = true;
        if (error) controller.error(error);
        else controller.close();
      };
      response.on('data', (bytes: Buffer) => {
        if (!settled) controller.enqueue(bytes);
      });
      response.on('end', () => settle());
      response.on('error', settle);
      // A connection that closes before the body is complete is an error, whatever emitted it.
      response.on('close', () => {
        if (!response.complete)
          settle(new Error('terminated: the connection closed before the response ended'));
      });
    },
    cancel(reason) {
      response.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}

export const nodeHttpFetch: typeof fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // A URL that is not http(s) throws here, which rejects the promise.
    const { request: send, agent } = transportFor(url);
    const request = send(
      url,
      {
        method: init.method ?? 'GET',
        headers: plainHeaders(init.headers),
        agent,
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (response) => {
        // Name/value pairs: the Response builds its Headers once from them.
        const headers = headerPairs(response);
        const status = response.statusCode ?? 502;
        // Responses without a body (204, 304) must not be given a stream.
        const body = status === 204 || status === 304 ? null : webBody(response);
        resolve(new Response(body, { status, statusText: response.statusMessage ?? '', headers }));
      },
    );
    request.on('error', reject);
    request.end(bodyOf(init.body));
  });

/** The reading end of a response body: what sseJsonChunks needs of a web stream's reader. */
export interface BodyReader {
  read(): Promise<{ done: true; value?: Uint8Array | undefined } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/** A response as postStream (below) gives it: status, headers and a reader of the body. */
export interface StreamResponse {
  status: number;
  /** The headers as a Headers object (built on demand: only an error answer needs them). */
  headers(): Headers;
  body: BodyReader;
  /** The whole body as text (an error answer). */
  text(): Promise<string>;
}

/**
 * A response body read straight from the socket's stream: the same chunks, end and errors as
 * webBody's stream (a body cut short is an error), without a web stream and a Response around it,
 * which cost about a tenth of a model worker's CPU per call.
 */
function bodyReader(response: IncomingMessage): BodyReader {
  const chunks: Uint8Array[] = [];
  let ended = false;
  let failure: Error | undefined;
  let waiting: (() => void) | undefined;
  const wake = (): void => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.();
  };
  response.on('data', (bytes: Buffer) => {
    if (ended || failure) return;
    chunks.push(bytes);
    wake();
  });
  response.on('end', () => {
    ended = true;
    wake();
  });
  const fail = (error: Error): void => {
    if (ended || failure) return;
    failure = error;
    wake();
  };
  response.on('error', fail);
  response.on('close', () => {
    if (!response.complete) fail(new Error('terminated: the connection closed before the response ended'));
  });
  return {
    async read() {
      for (;;) {
        const value = chunks.shift();
        if (value) return { done: false, value };
        if (failure) throw failure;
        if (ended) return { done: true };
        await new Promise<void>((resolve) => {
          waiting = resolve;
        });
      }
    },
    cancel(reason) {
      // A body read to its end leaves its connection to the agent, to be reused.
      if (ended) return Promise.resolve();
      failure ??= new Error('cancelled');
      response.destroy(reason instanceof Error ? reason : undefined);
      wake();
      return Promise.resolve();
    },
  };
}

async function readAll(body: BodyReader): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (let read = await body.read(); !read.done; read = await body.read())
    text += decoder.decode(read.value, { stream: true });
  return text + decoder.decode();
}

/** POSTs `body` over node:http(s) with the keep-alive agents; resolves once the headers arrived. */
export function postStream(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<StreamResponse> {
  return new Promise<StreamResponse>((resolve, reject) => {
    const target = new URL(url);
    // A URL that is not http(s) throws here, which rejects the promise.
    const { request: send, agent } = transportFor(target);
    const request = send(target, { method: 'POST', headers, agent, signal }, (response) => {
      const reader = bodyReader(response);
      resolve({
        status: response.statusCode ?? 502,
        headers: () => new Headers(headerPairs(response)),
        body: reader,
        text: () => readAll(reader),
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}
