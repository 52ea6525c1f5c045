// The HTTP requests of restApiCall, held to the same address policy as the web_fetch tool: its URL
// may come from message data, and an agent's model can reach it as a rule-chain tool, so by default
// only public addresses are reached. Each hop of a redirect is checked again; a host name is resolved
// once, every address it resolves to is checked, and the connection goes to a checked address, so DNS
// rebinding cannot slip past. Redirects are followed here, at most MAX_REDIRECTS of them.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { AppError } from '../../core/errors.ts';
import { checkedLookup, decodedBody } from '../../tools/http-get.ts';
import { isPublicAddress } from '../../tools/network-address.ts';
import type { NetworkPolicy } from '../types.ts';

export interface GuardedRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
  /** The largest (decompressed) answer read; a bigger one fails as `upstream`. */
  maxBytes: number;
}

export interface GuardedAnswer {
  status: number;
  statusText: string;
  contentType: string | undefined;
  body: string;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that carry credentials: not sent on to another origin, as fetch does. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
/** Headers that describe a body: dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'content-language']);

/** As Node's global agent: idle connections are kept, and dropped after 5 s without traffic. */
const AGENT_OPTIONS = { keepAlive: true, scheduling: 'lifo', timeout: 5000 } as const;

/** Sends requests under one address policy, over its own keep-alive connections; `close` ends them. */
export class GuardedClient {
  private readonly isAllowed: (address: string) => boolean;
  private readonly allowedHosts: Set<string>;
  private readonly http = new HttpAgent(AGENT_OPTIONS);
  private readonly https = new HttpsAgent(AGENT_OPTIONS);

  constructor(policy: NetworkPolicy = {}) {
    this.isAllowed = policy.allowPrivateNetwork === true ? () => true : isPublicAddress;
    this.allowedHosts = new Set((policy.allowedHosts ?? []).map((host) => host.toLowerCase()));
  }

  async send(url: string, request: GuardedRequest): Promise<GuardedAnswer> {
    let target = parseUrl(url);
    let { method, headers, body } = request;
    for (let hop = 0; ; hop += 1) {
      const response = await this.sendOnce(target, { ...request, method, headers, body }, hop > 0);
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || location === undefined) {
        return {
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          contentType: response.headers['content-type'],
          body: await readBody(response, request.maxBytes),
        };
      }
      response.resume();
      if (hop >= MAX_REDIRECTS)
        throw new AppError('upstream', `too many redirects (more than ${MAX_REDIRECTS})`);
      const next = parseUrl(new URL(location, target).href);
      const status = response.statusCode ?? 0;
      // As fetch: 303 turns anything but HEAD into a GET, 301 and 302 turn a POST into one.
      if (
        (status === 303 && method !== 'HEAD') ||
        ((status === 301 || status === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
        headers = withoutHeaders(headers, BODY_HEADERS);
      }
      if (next.origin !== target.origin) headers = withoutHeaders(headers, CREDENTIAL_HEADERS);
      target = next;
    }
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  /** One request to `url` without following redirects; the response is not read yet. */
  private sendOnce(url: URL, request: GuardedRequest, redirected: boolean): Promise<IncomingMessage> {
    const host = url.hostname.replace(/^\[|\]$/gu, '');
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const hostAllowed =
      this.allowedHosts.has(url.hostname) || this.allowedHosts.has(`${url.hostname}:${port}`);
    const check = (address: string, name?: string): AppError | undefined =>
      hostAllowed || this.isAllowed(address)
        ? undefined
        : refusal(name ? `${name} (${address})` : address, redirected);
    if (isIP(host) !== 0) {
      const refused = check(host);
      if (refused) return Promise.reject(refused);
    }
    const lookup = checkedLookup((address, hostname) => check(address, hostname));
    const https = url.protocol === 'https:';
    const options: RequestOptions = {
      method: request.method,
      headers: request.headers,
      signal: request.signal,
      lookup,
      agent: https ? this.https : this.http,
    };
    return new Promise((resolve, reject) => {
      const outgoing = (https ? httpsRequest : httpRequest)(url, options);
      outgoing.once('error', reject);
      outgoing.once('response', resolve);
      outgoing.end(request.body);
    });
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError('invalid', 'the URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('invalid', `only http and https URLs can be called, not ${url.protocol}`);
  }
  return url;
}

function refusal(target: string, redirected: boolean): AppError {
  const what = redirected ? 'refusing to follow a redirect to' : 'refusing to call';
  return new AppError(
    'forbidden',
    `${what} ${target}: private, loopback and link-local addresses are not allowed`,
  );
}

function withoutHeaders(headers: Record<string, string>, names: Set<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));
}

/** The answer as UTF-8 text, decompressed; past `limit` bytes the read stops with a 502 `too large`. */
function readBody(response: IncomingMessage, limit: number): Promise<string> {
  const tooLarge = (): AppError => new AppError('upstream', `the response is larger than ${limit} bytes`);
  if (Number(response.headers['content-length'] ?? 0) > limit) {
    response.destroy();
    return Promise.reject(tooLarge());
  }
  const stream = decodedBody(response);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Error): void => {
      response.destroy();
      if (stream !== response) stream.destroy();
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(tooLarge());
      else chunks.push(chunk);
    });
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.once('error', fail);
    if (stream !== response) response.once('error', fail);
    response.once('close', () => {
      if (!response.complete) fail(new Error('the connection closed before the response ended'));
    });
  });
}
