import { z } from 'zod';
import { compileRuleExpression } from '../expr-template.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';
import { nonEmptyText } from './config-fields.ts';

const caseSchema = z.object({
  case: nonEmptyText(
    'Condition',
    'An expr-lang expression over msg, metadata, msgType, dataType, vars and global.',
  ),
  then: nonEmptyText('Relation', 'The relation to take when the condition is true.'),
});

const configSchema = z.object({
  cases: z
    .array(caseSchema)
    .nullish()
    .transform((cases) => cases ?? [])
    .meta({ label: 'Cases', description: 'Tried in order; the first that is true names the relation.' }),
});

export const switchNode = defineNode(configSchema, {
  type: 'switch',
  label: 'Switch',
  description: 'Routes the message to the relation of the first case that is true, else Default.',
  category: 'filter',
  relations: ['Default', 'Failure'],
  create(config, factory) {
    const cases = config.cases.map((item, index) => ({
      expression: compileRuleExpression(item.case, `cases[${index}].case`),
      relation: item.then,
    }));
    const envOf = nodeEnvOf(factory);
    return {
      process(message, context) {
        const env = envOf(message, context);
        for (const item of cases) {
          // As RuleGo: a case that fails to evaluate is skipped, so the message may reach Default.
          let result: unknown;
          try {
            result = item.expression.evaluate(env);
          } catch {
            continue;
          }
          if (result === true) return Promise.resolve([{ relation: item.relation, message }]);
        }
        return Promise.resolve([{ relation: 'Default', message }]);
      },
    };
  },
});
