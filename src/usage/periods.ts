// Budget periods and usage days in the server's time zone (the process's TZ): a day starts at local
// midnight, a month on the 1st at local midnight.

export type PeriodKind = 'day' | 'month';

export interface Period {
  /** 2026-11-27 (day) or 2026-11 (month). */
  key: string;
  /** Epoch ms of the first instant. */
  start: number;
  /** Epoch ms of the next period's first instant: when the budget resets. */
  end: number;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

export function periodOf(kind: PeriodKind, now: number): Period {
  const date = new Date(now);
  const year = date.getFullYear();
  const month = date.getMonth();
  if (kind === 'month') {
    return {
      key: `${year}-${pad(month + 1)}`,
      start: new Date(year, month, 1).getTime(),
      end: new Date(year, month + 1, 1).getTime(),
    };
  }
  const day = date.getDate();
  return {
    key: `${year}-${pad(month + 1)}-${pad(day)}`,
    start: new Date(year, month, day).getTime(),
    end: new Date(year, month, day + 1).getTime(),
  };
}

/** The local calendar day of an instant: 2026-11-27. */
export function localDay(ms: number): string {
  return periodOf('day', ms).key;
}

/** An instant as ISO 8601 in the server's time zone, with its offset: 2026-11-28T00:00:00+01:00. */
export function formatLocal(ms: number): string {
  const date = new Date(ms);
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${zone}`
  );
}

/** The server's time zone name (Europe/Berlin), for answers that speak of local days. */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A bound of a usage query: a local day (2026-11-27: its start, or with `endOfDay` the next day's
 * start) or an ISO 8601 instant. Undefined when it is neither.
 */
export function parseBound(text: string, endOfDay: boolean): number | undefined {
  const day = DAY.exec(text);
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2]) - 1, Number(day[3])];
    const start = new Date(year, month, date);
    if (start.getFullYear() !== year || start.getMonth() !== month || start.getDate() !== date)
      return undefined;
    return endOfDay ? new Date(year, month, date + 1).getTime() : start.getTime();
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
