// One POST /chat/completions to an OpenAI-compatible provider over node:http, without the openai SDK
// and without a fetch Response around the answer (issue 29): the SDK's request building (headers
// merged five times over, a log-details object, an idempotency key, an abort controller and a timer
// of its own) and the web stream of the body cost about a third of a model worker's CPU per call.
// Failures read as they did with the SDK: a non-2xx answer is "<status> <error.message>" with its
// headers (Retry-After), a transport failure keeps its cause (the socket's error code).
import { postStream, type BodyReader } from './node-http-fetch.ts';

/**
 * A non-2xx answer: its status, the message as the openai SDK's APIError words it ("<status>
 * <error.message>"), and its headers (Retry-After).
 */
export class UpstreamStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Headers,
  ) {
    super(message);
    this.name = 'UpstreamStatusError';
  }
}

/** The request could not be made or answered (refused, reset, a DNS failure): its cause says why. */
export class UpstreamConnectionError extends Error {
  constructor(cause: unknown) {
    super('Connection error.', { cause });
    this.name = 'UpstreamConnectionError';
  }
}

/** The SDK's wording of an error answer: the body's error.message, else the body, else the status alone. */
function statusMessage(status: number, text: string): string {
  const json = parseOrUndefined(text) as { error?: unknown } | undefined;
  const error = json && typeof json === 'object' ? json.error : undefined;
  const detail =
    error && typeof error === 'object' && 'message' in error && error.message
      ? typeof error.message === 'string'
        ? error.message
        : JSON.stringify(error.message)
      : error
        ? JSON.stringify(error)
        : json === undefined
          ? text
          : undefined;
  return detail ? `${status} ${detail}` : `${status} status code (no body)`;
}

export interface ChatRequestTarget {
  /** The provider's base URL (…/v1); the call goes to its /chat/completions. */
  baseUrl: string;
  apiKey: string | undefined;
  /** A fetch of the caller's (tests); by default the request goes over node:http (postStream). */
  fetch?: typeof fetch | undefined;
}

/** What a successful call gives: the body of the event stream. */
interface Answer {
  status: number;
  headers(): Headers;
  body: BodyReader | null;
  text(): Promise<string>;
}

function send(
  target: ChatRequestTarget,
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<Answer> {
  if (!target.fetch) return postStream(url, headers, body, signal);
  return target.fetch(url, { method: 'POST', headers, body, signal }).then((response) => ({
    status: response.status,
    headers: () => response.headers,
    // Only a 2xx body is streamed; another one is read whole as the error's text (a reader locks it).
    body: response.ok && response.body ? response.body.getReader() : null,
    text: () => response.text(),
  }));
}

/** The endpoint as the SDK builds it: the base URL and the path, with one slash between. */
export function completionsUrl(baseUrl: string): string {
  return baseUrl.endsWith('/') ? `${baseUrl}chat/completions` : `${baseUrl}/chat/completions`;
}

/** Never parsing as JSON is a plain-text error body. */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Sends the request; resolves with the body of a 2xx response (the event stream; null without one). Rejects with
 * the SDK's APIError for any other status, APIConnectionError when the request could not be made,
 * and the fetch's own error when `signal` stopped it.
 */
export async function postChatCompletion(
  target: ChatRequestTarget,
  url: string,
  body: unknown,
  signal: AbortSignal,
  extraHeaders: Record<string, string> | undefined,
): Promise<BodyReader | null> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': 'agent-service',
  };
  if (target.apiKey) headers['authorization'] = `Bearer ${target.apiKey}`;
  // A node's own headers come last and win, as they did over the SDK's.
  if (extraHeaders) for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
  let response: Answer;
  try {
    response = await send(target, url, headers, JSON.stringify(body), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new UpstreamConnectionError(error);
  }
  if (response.status >= 200 && response.status < 300) return response.body;
  const text = await response.text().catch((error: unknown) => (error instanceof Error ? error.message : ''));
  throw new UpstreamStatusError(response.status, statusMessage(response.status, text), response.headers());
}
