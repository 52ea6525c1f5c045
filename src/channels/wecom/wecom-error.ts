// Errors of the WeCom adapter. Every message that leaves the adapter (answers, logs, account status)
// passes through scrubSecrets first: a platform's error text, a transport error or an SDK log line can
// quote a URL with an access token, or echo a secret.
import { AppError } from '../../core/errors.ts';

/** A failed WeCom call (API, long connection or media download): a 502 whose message carries no credential. */
export class WecomError extends AppError {
  constructor(
    message: string,
    readonly errcode?: number,
    /** The reconnect loop's hint (see channels/reconnect.ts). */
    readonly retryAfterMs?: number,
  ) {
    super('upstream', message);
  }
}

/**
 * A transport failure as a code or a fixed phrase only: the transport's own text can quote the URL,
 * access token included.
 */
export function transportDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string' && /^[A-Z_0-9]{2,40}$/.test(cause.code)) return cause.code;
  return (error as Error | undefined)?.name === 'TimeoutError' ? 'timed out' : 'request failed';
}
