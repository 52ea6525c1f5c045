// GET /usage: tokens, calls and cost over a time range, in total and per group.
import { z } from 'zod';
import { GROUP_BY } from '../../usage/group-by.ts';

export const usageQuery = z.strictObject({
  from: z.string().max(40).optional().meta({
    description:
      'A local day (2026-11-01, from its start) or an ISO 8601 instant; default: the 1st of this month.',
  }),
  to: z
    .string()
    .max(40)
    .optional()
    .meta({ description: 'A local day (2026-11-30, to its end) or an ISO 8601 instant; default: now.' }),
  groupBy: z.enum(GROUP_BY).optional().meta({ description: 'Groups of the answer; without it only totals.' }),
});

export const usageTotals = z.object({
  calls: z.number().meta({ description: 'Model calls, retried attempts and failed calls included.' }),
  failedCalls: z.number().meta({ description: 'Calls that failed, were cut off or were retried.' }),
  estimatedCalls: z
    .number()
    .meta({ description: 'Calls whose tokens are our estimate (the provider reported none).' }),
  inputTokens: z.number(),
  cachedInputTokens: z.number().meta({ description: 'Of inputTokens, read from the prompt cache.' }),
  outputTokens: z.number(),
  reasoningTokens: z.number().meta({ description: 'Of outputTokens, spent reasoning.' }),
  totalTokens: z.number(),
  cost: z.number().meta({ description: 'USD, from models.providers.<id>.pricing.' }),
});

export const usageGroup = usageTotals.extend({
  key: z
    .string()
    .meta({ description: 'The agent, provider, model, channel, account, user or day (empty: none).' }),
  channel: z.string().optional().meta({ description: 'Groups by account or user: their channel.' }),
});

export const usageAnswer = z.object({
  from: z.string(),
  to: z.string(),
  timeZone: z.string().meta({ description: "The server's time zone, which days and bounds are in." }),
  groupBy: z.enum(GROUP_BY).optional(),
  totals: usageTotals,
  groups: z.array(usageGroup),
});

export type UsageQuery = z.infer<typeof usageQuery>;
export type UsageAnswer = z.infer<typeof usageAnswer>;
export type UsageTotals = z.infer<typeof usageTotals>;
export type UsageGroup = z.infer<typeof usageGroup>;
