// GET /usage: the recorded model calls summed over a range of the server's local time.
import { invalid } from '../../core/errors.ts';
import { formatLocal, parseBound, periodOf, serverTimeZone } from '../../usage/periods.ts';
import { usd } from '../../usage/pricing.ts';
import type { UsageStore, UsageTotals } from '../../usage/usage-store.ts';
import type { UsageAnswer, UsageQuery } from './usage.schema.ts';

function shown<T extends UsageTotals>(totals: T): Omit<T, 'costNanos'> & { cost: number } {
  const { costNanos, ...rest } = totals;
  return { ...rest, cost: usd(costNanos) };
}

export class UsageService {
  constructor(
    private readonly store: Pick<UsageStore, 'query'>,
    private readonly now: () => number = Date.now,
  ) {}

  async usage(query: UsageQuery): Promise<UsageAnswer> {
    const now = this.now();
    const from = query.from === undefined ? periodOf('month', now).start : parseBound(query.from, false);
    if (from === undefined) throw invalid('from: use a day (2026-11-01) or an ISO 8601 time');
    const to = query.to === undefined ? now + 1 : parseBound(query.to, true);
    if (to === undefined) throw invalid('to: use a day (2026-11-30) or an ISO 8601 time');
    if (to <= from) throw invalid('to must be after from');
    const { totals, groups } = await this.store.query(from, to, query.groupBy);
    return {
      from: formatLocal(from),
      to: formatLocal(to),
      timeZone: serverTimeZone(),
      ...(query.groupBy ? { groupBy: query.groupBy } : {}),
      totals: shown(totals),
      groups: groups.map(shown),
    };
  }
}
