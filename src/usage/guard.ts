// What is checked before a turn starts: the requests-per-minute limits (an api account's, a chat
// user's) and whether a blocking budget that applies is already spent, so a refused request costs
// no model call and (on the chat endpoint) is an HTTP 429 even when it asked for a stream. The
// budgets are enforced again, with reservations, at every model call (meter.ts).
import type { Config } from '../config/schema.ts';
import { AppError } from '../core/errors.ts';
import { own } from '../core/id-schema.ts';
import type { Attribution } from './attribution.ts';
import { isBudgetExceeded, type Budgets } from './budgets.ts';
import { formatLocal } from './periods.ts';
import type { RequestLimiter } from './request-limiter.ts';

/** Over a requests-per-minute limit; `retryAfter` in seconds. */
export class RateLimitError extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
    readonly window: number,
  ) {
    super('rate-limited', message);
  }
}

/** Told once per budget period (or rate-limit minute) to a chat user whose turn was refused. */
export const BUDGET_NOTICE =
  'Sorry, the usage limit for this assistant has been reached, so I cannot answer now. It resets at {time}.';
export const RATE_NOTICE =
  'You are sending messages faster than I can answer. Please wait a minute and try again.';

export class UsageGuard {
  constructor(
    private readonly config: () => Config,
    private readonly budgets: Budgets,
    private readonly limiter: RequestLimiter,
  ) {}

  /** A chat-endpoint request: the api account's rate limit, then the budgets of the call. */
  async admitApi(who: Attribution): Promise<void> {
    const limits = this.config().rate_limits;
    if (who.accountId !== '') {
      const limit = own(limits.accounts, who.accountId) ?? limits.account_per_minute;
      if (limit > 0) {
        const wait = await this.limiter.hit(`account:${who.accountId}`, limit);
        if (wait > 0)
          throw new RateLimitError(
            `rate limit reached: ${limit} requests per minute for api account ${who.accountId}; retry in ${wait} s`,
            wait,
            0,
          );
      }
    }
    await this.budgets.check(who);
  }

  /** A chat platform message: the user's rate limit, then the budgets of the call. */
  async admitChannelUser(who: Attribution): Promise<void> {
    const limit = this.config().rate_limits.user_per_minute;
    if (limit > 0) {
      const key = `user:${who.channel}:${who.accountId}:${who.userId}`;
      const wait = await this.limiter.hit(key, limit);
      if (wait > 0)
        throw new RateLimitError(
          `rate limit reached: ${limit} messages per minute`,
          wait,
          Math.floor(Date.now() / 60_000),
        );
    }
    await this.budgets.check(who);
  }

  /**
   * The short reply a chat user gets when a budget or rate limit refused their turn: once per
   * budget period (or minute), undefined after that and for other errors.
   */
  async noticeFor(error: unknown, who: Attribution): Promise<string | undefined> {
    const user = `${who.channel}:${who.accountId}:${who.userId}`;
    if (isBudgetExceeded(error)) {
      const key = `budget:${error.budgetId}:${error.period.key}:${user}`;
      const first = await this.budgets.firstTime(key, error.period.end + 60 * 60_000);
      return first ? BUDGET_NOTICE.replace('{time}', formatLocal(error.period.end)) : undefined;
    }
    if (error instanceof RateLimitError) {
      const first = await this.budgets.firstTime(`rate:${error.window}:${user}`, (error.window + 2) * 60_000);
      return first ? RATE_NOTICE : undefined;
    }
    return undefined;
  }
}

export function isRefusal(error: unknown): boolean {
  return isBudgetExceeded(error) || error instanceof RateLimitError;
}

/**
 * How long a turn waits for its admission check (a rate limit in Redis, budgets in the database).
 * The check runs before the turn's time limit starts, so a store that does not answer (PostgreSQL
 * cut off) must not hold the request past it; and a limit that cannot be checked is not waived:
 * the request is refused with a 503 the client can retry (fail closed).
 */
export const ADMISSION_WAIT_MS = 1_500;

/** Thrown when the admission check did not answer in time. */
export class AdmissionUnavailableError extends AppError {
  readonly retryAfter = 1;
  constructor(waitMs: number) {
    super(
      'unavailable',
      `the rate-limit and budget check did not answer within ${waitMs} ms (the store is unavailable); retry shortly`,
    );
  }
}

/** Settles as `check` does within `waitMs`; after that rejects with AdmissionUnavailableError. */
export function admitWithin(check: Promise<void>, waitMs = ADMISSION_WAIT_MS): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new AdmissionUnavailableError(waitMs)), waitMs);
    check.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
