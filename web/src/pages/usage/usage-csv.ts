// The CSV export of the Usage page: one row per group of every table shown (days, agents,
// accounts, channels), with the range in its first columns.
import type { UsageGroup } from '@server/resources/usage/usage.schema.ts';

const COLUMNS = [
  'calls',
  'failedCalls',
  'estimatedCalls',
  'inputTokens',
  'cachedInputTokens',
  'outputTokens',
  'reasoningTokens',
  'totalTokens',
  'cost',
] as const;

/** A CSV field, quoted when it holds a separator, a quote or a line break; formulas are defused. */
function field(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function usageCsv(
  range: { from: string; to: string },
  sections: Array<[string, UsageGroup[]]>,
): string {
  const lines = [['from', 'to', 'group', 'key', 'channel', ...COLUMNS].join(',')];
  for (const [group, rows] of sections) {
    for (const row of rows) {
      lines.push(
        [range.from, range.to, group, row.key, row.channel ?? '', ...COLUMNS.map((column) => row[column])]
          .map(field)
          .join(','),
      );
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
