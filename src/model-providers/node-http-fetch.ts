// A fetch for the openai SDK over node:http(s) with keep-alive agents. Node's built-in fetch costs
// about a third more CPU per model call, and a model call is most of an agent turn's overhead.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 512 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 512 }),
};

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
    const agent =
      url.protocol === 'https:' ? agents['https:'] : url.protocol === 'http:' ? agents['http:'] : undefined;
    if (!agent) {
      reject(new TypeError(`unsupported protocol ${url.protocol}`));
      return;
    }
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(
      url,
      {
        method: init.method ?? 'GET',
        headers: plainHeaders(init.headers),
        agent,
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (response) => {
        // Name/value pairs: the Response builds its Headers once from them.
        const headers: Array<[string, string]> = [];
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers.push([name, Array.isArray(value) ? value.join(', ') : value]);
        }
        const status = response.statusCode ?? 502;
        // Responses without a body (204, 304) must not be given a stream.
        const body = status === 204 || status === 304 ? null : webBody(response);
        resolve(new Response(body, { status, statusText: response.statusMessage ?? '', headers }));
      },
    );
    request.on('error', reject);
    request.end(bodyOf(init.body));
  });
