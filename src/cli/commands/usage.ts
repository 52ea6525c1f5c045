// `usage`: tokens, calls and cost of the model calls over a range, per agent (or another group).
import { InvalidArgumentError, type Command } from 'commander';
import { withJson, type Context } from '../context.ts';
import type { UsageAnswer } from '../../resources/usage/usage.schema.ts';
type Totals = UsageAnswer['totals'];

const GROUPS = ['agent', 'provider', 'model', 'channel', 'account', 'user', 'day'] as const;

function group(value: string): string {
  if (!(GROUPS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`use one of ${GROUPS.join(', ')}`);
  return value;
}

function row(name: string, totals: Totals): string[] {
  return [
    name,
    String(totals.calls),
    String(totals.failedCalls),
    String(totals.inputTokens),
    String(totals.cachedInputTokens),
    String(totals.outputTokens),
    String(totals.reasoningTokens),
    String(totals.totalTokens),
    `$${totals.cost.toFixed(4)}`,
  ];
}

export function registerUsage(program: Command, cx: Context): void {
  withJson(
    program
      .command('usage')
      .description('tokens, calls and cost of model calls (days in the server time zone)')
      .option('--from <day|time>', 'first day (2026-11-01) or ISO time; default: the 1st of this month')
      .option('--to <day|time>', 'last day (2026-11-30, included) or ISO time; default: now')
      .option('-b, --by <group>', `one of ${GROUPS.join(', ')}`, group, 'agent'),
  ).action(async (options: { from?: string; to?: string; by: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const query: Record<string, string> = { groupBy: options.by };
    if (options.from) query['from'] = options.from;
    if (options.to) query['to'] = options.to;
    const answer = await api.get<UsageAnswer>('/usage', query);
    cx.print(options.json, answer, () =>
      [
        `${answer.from} to ${answer.to} (${answer.timeZone})`,
        cx.table(
          [
            options.by.toUpperCase(),
            'CALLS',
            'FAILED',
            'INPUT',
            'CACHED',
            'OUTPUT',
            'REASONING',
            'TOTAL',
            'COST',
          ],
          [
            ...answer.groups.map((entry) =>
              row(entry.channel ? `${entry.channel}/${entry.key || '-'}` : entry.key || '-', entry),
            ),
            row('total', answer.totals),
          ],
        ),
      ].join('\n'),
    );
  });
}
