import type { APIConnectionError, APIError } from 'openai';
import { AppError } from '../core/errors.ts';
import { scrubSecrets } from '../core/scrub-secrets.ts';
import { StreamedError } from './sse-decoder.ts';
import { UpstreamConnectionError, UpstreamStatusError } from './chat-request.ts';

export interface UpstreamFailure {
  /** Short, key-free text such as "503 Service Unavailable" or "connection error (ECONNREFUSED)". */
  reason: string;
  /** 429, 5xx, connection failures and malformed responses are worth another try; nothing else is. */
  retryable: boolean;
  /** What the server asked for with Retry-After / Retry-After-Ms, in ms. */
  retryAfterMs: number | undefined;
}

const MAX_REASON_CHARS = 200;

/** The SDK's error classes, passed in so that this module does not load the SDK on its own. */
export interface SdkErrors {
  APIError: typeof APIError;
  APIConnectionError: typeof APIConnectionError;
}

/**
 * Classifies whatever the SDK or the transport threw while talking to a provider. `sdk` is the
 * loaded SDK; it is missing only when loading it failed, and then no error can be one of its own.
 */
export function describeFailure(error: unknown, sdk: SdkErrors | undefined): UpstreamFailure {
  if (error instanceof AppError) return { reason: error.message, retryable: false, retryAfterMs: undefined };
  // The chat call's own errors (chat-request.ts), worded as the SDK's below.
  if (error instanceof UpstreamConnectionError) {
    const code = errorCode(error);
    return {
      reason: code ? `connection error (${code})` : 'connection error',
      retryable: true,
      retryAfterMs: undefined,
    };
  }
  if (error instanceof UpstreamStatusError) {
    const status = error.status;
    return {
      reason: error.message,
      retryable: status === 429 || status >= 500,
      retryAfterMs: retryAfter(error.headers),
    };
  }
  if (sdk && error instanceof sdk.APIConnectionError) {
    const code = errorCode(error);
    return {
      reason: code ? `connection error (${code})` : 'connection error',
      retryable: true,
      retryAfterMs: undefined,
    };
  }
  if (sdk && error instanceof sdk.APIError) {
    const status = error.status;
    if (status === undefined)
      return { reason: `error in stream: ${error.message}`, retryable: false, retryAfterMs: undefined };
    const detail = error.message.startsWith(String(status)) ? error.message : `${status} ${error.message}`;
    return {
      reason: detail,
      retryable: status === 429 || status >= 500,
      retryAfterMs: retryAfter(error.headers),
    };
  }
  if (error instanceof StreamedError)
    return { reason: `error in stream: ${error.message}`, retryable: false, retryAfterMs: undefined };
  if (error instanceof SyntaxError)
    return { reason: 'malformed response', retryable: true, retryAfterMs: undefined };
  // undici reports a dropped connection while reading the body as a TypeError ("terminated").
  const message = error instanceof Error ? error.message : String(error);
  return { reason: `connection lost (${message})`, retryable: true, retryAfterMs: undefined };
}

/** Cuts upstream text to a readable length and masks the key wherever it appears. */
export function cleanReason(reason: string, apiKey: string | undefined): string {
  // Mask before cutting, so a cut cannot leave half a key behind.
  const short = scrubSecrets(reason, [apiKey]).replace(/\s+/gu, ' ').trim();
  return short.length > MAX_REASON_CHARS ? `${short.slice(0, MAX_REASON_CHARS)}…` : short;
}

// fetch wraps the socket error ("fetch failed" caused by ECONNREFUSED), so look down the chain
// for an error code, else take the innermost message.
function errorCode(error: unknown): string | undefined {
  let innermost: string | undefined;
  for (
    let current = error, depth = 0;
    current instanceof Error && depth < 5;
    current = current.cause, depth += 1
  ) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    if (depth > 0) innermost = current.message;
  }
  return innermost;
}

function retryAfter(headers: Headers | undefined): number | undefined {
  const milliseconds = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
