// Budgets (config `budgets`, REST /budgets): which apply to a call, the reservation made before it,
// the settlement after it, the 80% and 100% events, and what a budget has spent this period.
import { createHash, randomUUID } from 'node:crypto';
import type { BudgetConfig, BudgetScope } from '../config/schema.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Attribution } from './attribution.ts';
import { reached, ZERO, type Amount, type BudgetCounters, type CounterEntry } from './budget-counters.ts';
import { formatLocal, periodOf, type Period } from './periods.ts';
import { Listeners } from './listeners.ts';
import { nanos, usd } from './pricing.ts';
import type { UsageStore } from './usage-store.ts';
import type { Logger } from '../core/logger.ts';

/** A call refused by a blocking budget: HTTP 429 on the chat endpoint. */
export class BudgetExceededError extends AppError {
  constructor(
    readonly budgetId: string,
    readonly period: Period,
  ) {
    super('rate-limited', `budget ${budgetId} reached, resets at ${formatLocal(period.end)}`);
  }
}

export function isBudgetExceeded(error: unknown): error is BudgetExceededError {
  return error instanceof BudgetExceededError;
}

export type BudgetEvent =
  /** 80% of a limit used. */
  | { type: 'warning'; budget: BudgetConfig; spent: Amount; period: Period }
  /** The limit reached (a blocking budget refuses calls from now on; a warn budget only says so). */
  | { type: 'reached'; budget: BudgetConfig; spent: Amount; period: Period }
  /** A call refused. */
  | { type: 'blocked'; budget: BudgetConfig; attribution: Attribution; period: Period };

export interface NotifyTarget {
  platform: string;
  accountId?: string | undefined;
  chatId: string;
}

export interface BudgetsOptions {
  budgets: () => BudgetConfig[];
  counters: BudgetCounters;
  store: Pick<UsageStore, 'spentSince'>;
  logger?: Logger;
  /** Sends the operator's budgets[].notify messages. */
  notify?: (target: NotifyTarget, text: string) => Promise<void>;
  now?: () => number;
}

export interface Reservation {
  callId: string;
  budgets: BudgetConfig[];
  entries: CounterEntry[];
  periods: Period[];
}

export interface BudgetStatus {
  spent: { tokens: number; cost: number };
  /** Held by calls in flight. */
  reserved: { tokens: number; cost: number };
  periodStart: string;
  resetsAt: string;
  reached: boolean;
}

/** How long a call waits for the calls in flight to settle when they hold what is left of a budget. */
const MAX_WAIT_MS = 60_000;

export function scopeMatches(scope: BudgetScope, who: Attribution): boolean {
  if ('agent' in scope) return who.agentId === scope.agent;
  if ('account' in scope) return who.channel === 'api' && who.accountId === scope.account;
  if ('channel' in scope)
    return (
      who.channel === scope.channel && (scope.accountId === undefined || who.accountId === scope.accountId)
    );
  if ('user' in scope) return who.userId === scope.user;
  return true;
}

function fraction(spent: Amount, budget: BudgetConfig): number {
  const byTokens = budget.tokens === undefined ? 0 : spent.tokens / budget.tokens;
  const byCost = budget.cost === undefined ? 0 : spent.nanos / nanos(budget.cost);
  return Math.max(byTokens, byCost);
}

export class Budgets {
  private readonly seeded = new Map<string, Promise<void>>();
  private readonly listeners = new Listeners<BudgetEvent>('a budget event listener');
  private readonly now: () => number;

  constructor(private readonly options: BudgetsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The metric hook: every warning, limit reached and refused call. */
  onEvent(listener: (event: BudgetEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  applicable(who: Attribution): BudgetConfig[] {
    const budgets = this.options.budgets();
    return budgets.length === 0 ? budgets : budgets.filter((budget) => scopeMatches(budget.scope, who));
  }

  /**
   * Reserves `amount` on the budgets that apply, or throws BudgetExceededError when a blocking one
   * has reached its limit (nothing reserved then). When what is left is held by calls in flight,
   * waits for them to settle and looks again. Undefined when no budget applies.
   */
  async reserve(who: Attribution, amount: Amount, signal?: AbortSignal): Promise<Reservation | undefined> {
    const budgets = this.applicable(who);
    if (budgets.length === 0) return undefined;
    const callId = randomUUID();
    const started = this.now();
    for (let attempt = 0; ; attempt += 1) {
      const now = this.now();
      const { entries, periods } = await this.entries(budgets, now);
      const refusal = await this.options.counters.reserve(entries, callId, amount, now);
      if (!refusal) return { callId, budgets, entries, periods };
      if (!refusal.reached && now - started < MAX_WAIT_MS && !signal?.aborted) {
        await this.options.counters.settled(Math.min(10 * 2 ** attempt, 250));
        continue;
      }
      const budget = budgets[refusal.index] as BudgetConfig;
      const period = periods[refusal.index] as Period;
      this.emit({ type: 'blocked', budget, attribution: who, period });
      throw new BudgetExceededError(budget.id, period);
    }
  }

  /** Releases a reservation and counts what the call used; says when a budget crosses 80% or 100%. */
  async settle(reservation: Reservation | undefined, actual: Amount): Promise<void> {
    if (!reservation) return;
    const results = await this.options.counters.settle(reservation.entries, reservation.callId, actual);
    results.forEach(({ before, after }, index) => {
      const budget = reservation.budgets[index] as BudgetConfig;
      const period = reservation.periods[index] as Period;
      const was = fraction(before, budget);
      const is = fraction(after, budget);
      if (was < 1 && is >= 1) this.emit({ type: 'reached', budget, spent: after, period });
      else if (was < 0.8 && is >= 0.8) this.emit({ type: 'warning', budget, spent: after, period });
    });
  }

  /** Throws BudgetExceededError when a blocking budget of `who` has already spent its limit. */
  async check(who: Attribution): Promise<void> {
    const budgets = this.applicable(who).filter((budget) => budget.action === 'block');
    if (budgets.length === 0) return;
    const { entries, periods } = await this.entries(budgets, this.now());
    const states = await this.options.counters.read(entries);
    const index = states.findIndex((state, position) =>
      reached(entries[position] as CounterEntry, { spent: state.spent, reserved: ZERO }),
    );
    if (index >= 0)
      throw new BudgetExceededError((budgets[index] as BudgetConfig).id, periods[index] as Period);
  }

  async status(budget: BudgetConfig): Promise<BudgetStatus> {
    const { entries, periods } = await this.entries([budget], this.now());
    const [state] = await this.options.counters.read(entries);
    const period = periods[0] as Period;
    const spent = state?.spent ?? ZERO;
    const reserved = state?.reserved ?? ZERO;
    return {
      spent: { tokens: spent.tokens, cost: usd(spent.nanos) },
      reserved: { tokens: reserved.tokens, cost: usd(reserved.nanos) },
      periodStart: formatLocal(period.start),
      resetsAt: formatLocal(period.end),
      reached: reached(entries[0] as CounterEntry, { spent, reserved: ZERO }),
    };
  }

  /** True the first time `key` is asked for until `expiresAt` (shared by clustered instances). */
  firstTime(key: string, expiresAt: number): Promise<boolean> {
    return this.options.counters.firstTime(key, expiresAt);
  }

  private async entries(
    budgets: BudgetConfig[],
    now: number,
  ): Promise<{ entries: CounterEntry[]; periods: Period[] }> {
    const periods = budgets.map((budget) => periodOf(budget.period, now));
    const entries = budgets.map((budget, index) => {
      const period = periods[index] as Period;
      return {
        key: `${budget.id}:${scopeHash(budget.scope)}:${period.key}`,
        limitTokens: budget.tokens ?? -1,
        limitNanos: budget.cost === undefined ? -1 : nanos(budget.cost),
        block: budget.action === 'block',
        expiresAt: period.end + 2 * 24 * 60 * 60_000,
      };
    });
    await Promise.all(
      entries.map((entry, index) =>
        this.seed(entry, budgets[index] as BudgetConfig, periods[index] as Period),
      ),
    );
    return { entries, periods };
  }

  /** A counter first used in this process starts from what the database recorded this period. */
  private seed(entry: CounterEntry, budget: BudgetConfig, period: Period): Promise<void> {
    let seeding = this.seeded.get(entry.key);
    if (!seeding) {
      if (this.seeded.size > 10_000) this.seeded.clear();
      seeding = this.options.store
        .spentSince(budget.scope, period.start)
        .then((spent) => this.options.counters.seed(entry, { tokens: spent.tokens, nanos: spent.costNanos }));
      this.seeded.set(entry.key, seeding);
      seeding.catch(() => this.seeded.delete(entry.key));
    }
    return seeding;
  }

  private emit(event: BudgetEvent): void {
    const { budget, period } = event;
    const fields = { budget: budget.id, period: period.key, resetsAt: formatLocal(period.end) };
    if (event.type === 'blocked') {
      this.options.logger?.info(
        { ...fields, agent: event.attribution.agentId },
        'model call refused by budget',
      );
    } else {
      const spent = { tokens: event.spent.tokens, cost: usd(event.spent.nanos) };
      const limit = { tokens: budget.tokens, cost: budget.cost };
      const message =
        event.type === 'warning'
          ? `budget ${budget.id}: 80% used`
          : budget.action === 'block'
            ? `budget ${budget.id} reached; model calls are refused until ${fields.resetsAt}`
            : `budget ${budget.id} exceeded (warn only)`;
      this.options.logger?.warn({ ...fields, spent, limit }, message);
      if (budget.notify && this.options.notify) {
        const text = `${message} (spent ${describe(spent)} of ${describe(limit)}).`;
        this.options
          .notify(budget.notify, text)
          .catch((error: unknown) =>
            this.options.logger?.warn(
              { ...fields, err: errorMessage(error) },
              'could not send the budget notice',
            ),
          );
      }
    }
    this.listeners.emit(event, this.options.logger);
  }
}

function describe(amount: { tokens?: number | undefined; cost?: number | undefined }): string {
  const parts: string[] = [];
  if (amount.tokens !== undefined) parts.push(`${amount.tokens} tokens`);
  if (amount.cost !== undefined) parts.push(`$${amount.cost.toFixed(4)}`);
  return parts.join(', ');
}

const hashes = new WeakMap<BudgetScope, string>();

/** Part of a counter's key, so that a budget whose scope changes starts a counter of its own. */
function scopeHash(scope: BudgetScope): string {
  let hash = hashes.get(scope);
  if (hash === undefined) {
    hash = createHash('sha256').update(JSON.stringify(scope)).digest('hex').slice(0, 10);
    hashes.set(scope, hash);
  }
  return hash;
}
