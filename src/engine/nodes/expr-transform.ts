import { z } from 'zod';
import { compileMapping, compileRuleExpression, exprText } from '../expr-template.ts';
import { goJson } from '../go-json.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';
import { optionalText } from './config-fields.ts';

const configSchema = z.object({
  expr: optionalText(
    'Expression',
    'One expr-lang expression whose value replaces the data; takes precedence over the mapping.',
  ),
  mapping: z.record(z.string(), z.string()).default({}).meta({
    label: 'Mapping',
    description: 'Field to expression, e.g. {"name": "upper(msg.name)"}: the data becomes that JSON object.',
  }),
});

export const exprTransformNode = defineNode(configSchema, {
  type: 'exprTransform',
  label: 'Expression transform',
  description:
    'Replaces the data with the value of an expr-lang expression, or with a JSON object built from a field mapping.',
  category: 'transform',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const where = `node "${factory.nodeId}"`;
    const single = config.expr.trim();
    const expression = single === '' ? undefined : compileRuleExpression(single, where);
    const mapping = compileMapping(config.mapping, where);
    const envOf = nodeEnvOf(factory);
    return {
      process(message, context) {
        const env = envOf(message, context);
        if (expression) {
          // As RuleGo: the value as text is the new data; the data type stays.
          const data = exprText(expression.evaluate(env));
          return Promise.resolve([{ relation: 'Success', message: { ...message, data } }]);
        }
        // As RuleGo, which marshals a Go map: keys sorted.
        const data = goJson(mapping(env));
        return Promise.resolve([{ relation: 'Success', message: { ...message, dataType: 'JSON', data } }]);
      },
    };
  },
});
