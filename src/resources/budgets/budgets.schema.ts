// Shapes of /budgets: a budget as the config file has it (config `budgets`), and as the API shows
// it, with what it spent in its current period and when that period ends.
import { z } from 'zod';
import { budgetSchema, budgetScopeSchema } from '../../config/schema.ts';
import { idParam } from '../../http/params.ts';

export const budgetBody = budgetSchema;

/** PUT replaces a budget: the same fields; `id`, when given, must be the path's. */
export const budgetReplaceBody = z
  .strictObject({ ...budgetSchema.shape, id: idParam.optional() })
  .refine((budget) => budget.tokens !== undefined || budget.cost !== undefined, {
    message: 'a budget needs tokens, cost or both',
  });

export const budgetParams = z.object({ id: idParam });

const amount = z.object({ tokens: z.number(), cost: z.number().meta({ description: 'USD' }) });

export const budgetView = z.object({
  id: z.string(),
  scope: budgetScopeSchema,
  period: z.enum(['day', 'month']),
  tokens: z.number().optional(),
  cost: z.number().optional(),
  action: z.enum(['block', 'warn']),
  notify: z.object({ platform: z.string(), accountId: z.string().optional(), chatId: z.string() }).optional(),
  spent: amount.meta({ description: 'Spent in the current period.' }),
  reserved: amount.meta({ description: 'Held by model calls in flight.' }),
  periodStart: z.string().meta({ description: 'In the server time zone, ISO 8601 with its offset.' }),
  resetsAt: z
    .string()
    .meta({ description: 'When the period ends and the budget resets (server time zone).' }),
  reached: z.boolean(),
});

export type BudgetBody = z.infer<typeof budgetBody>;
export type BudgetReplaceBody = z.infer<typeof budgetReplaceBody>;
export type BudgetView = z.infer<typeof budgetView>;
