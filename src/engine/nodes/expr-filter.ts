import { z } from 'zod';
import { compileRuleExpression } from '../expr-template.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';

const configSchema = z.object({
  expr: z
    .string()
    .refine((text) => text.trim() !== '', 'expr can not be empty')
    .meta({
      label: 'Expression',
      description:
        'An expr-lang expression over id, ts, data, msg, metadata, msgType, dataType, vars and global.',
    }),
});

export const exprFilterNode = defineNode(configSchema, {
  type: 'exprFilter',
  label: 'Expression filter',
  description: 'Routes the message to True when the expression is boolean true, else False.',
  category: 'filter',
  relations: ['True', 'False', 'Failure'],
  create(config, factory) {
    // Compiled once per chain load; an evaluation error (member access on text, say) is a Failure.
    const expression = compileRuleExpression(config.expr, 'expr');
    const env = nodeEnvOf(factory);
    return {
      process(message, context) {
        // As RuleGo: only the boolean true is True; any other value, nil included, is False.
        const relation = expression.evaluate(env(message, context)) === true ? 'True' : 'False';
        return Promise.resolve([{ relation, message }]);
      },
    };
  },
});
