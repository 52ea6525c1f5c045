// The one guarded HTTP call every platform adapter makes: redirects refused (a token in a header or
// a URL must never reach another origin), a time limit joined with the caller's signal, the answer
// read up to a size cap, transport failures reduced to a code (their own text can quote the URL and
// its token), and every failure a PlatformError whose text has the account's secrets scrubbed out.
import { AppError } from '../core/errors.ts';
import { readBytesCapped } from '../core/read-capped.ts';
import { scrubSecrets } from '../core/scrub-secrets.ts';

/** A failed platform call (kind `upstream`, a 502); its message is safe to show and log. */
export class PlatformError extends AppError {
  /** The HTTP status the platform answered, if it answered (`status` is our own answer's, 502). */
  readonly httpStatus: number | undefined;
  /** The platform's own error code (Telegram's error_code, Feishu's code, Slack's error, ...). */
  readonly code: string | number | undefined;
  /** How long the platform asked us to wait (a 429's Retry-After); the reconnect loop honours it. */
  readonly retryAfterMs: number | undefined;
  /** The platform could not be reached or the connection broke (reset, timed out): no answer at all. */
  readonly unreachable: boolean;

  constructor(
    message: string,
    details: {
      status?: number | undefined;
      code?: string | number | undefined;
      retryAfterMs?: number | undefined;
      unreachable?: boolean;
    } = {},
  ) {
    super('upstream', message);
    this.unreachable = details.unreachable ?? false;
    this.httpStatus = details.status;
    this.code = details.code;
    this.retryAfterMs = details.retryAfterMs;
  }
}

export interface PlatformRequest {
  /** Names the call in messages: "telegram sendMessage", "wecom /cgi-bin/message/send". */
  what: string;
  url: string | URL;
  /** Default: POST with a body, GET without. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is (a form with files, raw bytes). */
  body?: FormData | Blob | Buffer;
  /** The caller's cancel; its reason is thrown as it is. */
  signal?: AbortSignal | undefined;
  /** Time limit of the whole call, answer included, in ms. */
  timeoutMs: number;
  /** Largest answer read, in bytes; a larger one fails unread. */
  maxBytes: number;
  /** The account's credentials (and tokens): removed from any text that reaches an error. */
  secrets?: Iterable<string | undefined>;
}

export interface PlatformResponse {
  status: number;
  ok: boolean;
  headers: Headers;
  body: Buffer;
  /** A 429's or 503's Retry-After, in ms. */
  retryAfterMs: number | undefined;
  /** The answer as a JSON object ({} for an empty one); anything else is a PlatformError. */
  json(): Record<string, unknown>;
}

/** The wait a 429 or 503 asks for (Retry-After in seconds), in ms. */
export function retryAfterOf(status: number, headers: Headers): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const header = headers.get('retry-after');
  const seconds = Number(header);
  return header !== null && header.trim() !== '' && Number.isFinite(seconds) && seconds >= 0
    ? seconds * 1000
    : undefined;
}

/** A transport failure as a code or a fixed phrase only. */
function transportDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string' && /^[A-Z_0-9]{2,40}$/.test(cause.code)) return cause.code;
  return (error as Error | undefined)?.name === 'TimeoutError' ? 'timed out' : 'request failed';
}

/** One call to a platform: see the file's head for what it guards. */
export async function platformFetch(request: PlatformRequest): Promise<PlatformResponse> {
  const signals = [AbortSignal.timeout(request.timeoutMs), ...(request.signal ? [request.signal] : [])];
  const headers: Record<string, string> = { ...request.headers };
  let body: string | FormData | Blob | Buffer | undefined = request.body;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  const failed = (error: unknown): never => {
    if (request.signal?.aborted) throw request.signal.reason;
    if (error instanceof PlatformError) throw error;
    throw new PlatformError(`${request.what}: could not reach the API (${transportDetail(error)})`, {
      unreachable: true,
    });
  };
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      redirect: 'error',
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    return failed(error);
  }
  const retryAfterMs = retryAfterOf(response.status, response.headers);
  const bytes = await readBytesCapped(
    response,
    request.maxBytes,
    () =>
      new PlatformError(`${request.what}: the answer is larger than ${request.maxBytes} bytes`, {
        status: response.status,
      }),
  ).catch(failed);
  const answer = {
    status: response.status,
    ok: response.ok,
    headers: response.headers,
    body: bytes,
    retryAfterMs,
    json: () => jsonOf(answer, request.what),
  };
  return answer;
}

function jsonOf(response: Omit<PlatformResponse, 'json'>, what: string): Record<string, unknown> {
  const text = response.body.toString('utf8');
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Reported below, as for a JSON value that is not an object.
  }
  throw new PlatformError(`${what}: the API sent an answer that is not JSON (status ${response.status})`, {
    status: response.status,
  });
}

/** A failed call as the platform explained it: its code and its message, scrubbed and cut. */
export function platformFailure(
  what: string,
  failure: {
    status: number;
    code?: string | number | undefined;
    message: string;
    secrets?: Iterable<string | undefined>;
    retryAfterMs?: number | undefined;
  },
): PlatformError {
  const secrets = [...(failure.secrets ?? [])];
  const code =
    failure.code === undefined ? undefined : scrubSecrets(String(failure.code), secrets).slice(0, 100);
  const message = scrubSecrets(failure.message, secrets).slice(0, 300);
  const coded = code !== undefined && code !== String(failure.status) ? `, code ${code}` : '';
  return new PlatformError(`${what} failed (status ${failure.status}${coded}): ${message}`, {
    status: failure.status,
    code: typeof failure.code === 'number' ? failure.code : code,
    retryAfterMs: failure.retryAfterMs,
  });
}
