import { z } from 'zod';
import { finishers, MessageScript } from '../message-script.ts';
import type { NodeDefinition } from '../types.ts';

const caseSchema = z.object({
  case: z
    .string()
    .min(1)
    .meta({ label: 'Condition', description: 'A boolean expression over msg, metadata, msgType.' }),
  then: z
    .string()
    .min(1)
    .meta({ label: 'Relation', description: 'The relation to take when the condition holds.' }),
});

const configSchema = z.object({
  cases: z
    .array(caseSchema)
    .default([])
    .meta({ label: 'Cases', description: 'Tried in order; the first that holds names the relation.' }),
});

export const switchNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'switch',
  label: 'Switch',
  description: 'Routes the message to the relation of the first case that holds, else Default.',
  category: 'filter',
  relations: ['Default', 'Failure'],
  configSchema,
  async create(config, { services }) {
    // All cases compile into one function returning the index of the first match: one call per message.
    const body = [
      ...config.cases.map((item, index) => `if (${item.case}\n) return ${index};`),
      'return -1;',
    ].join('\n');
    const script = await MessageScript.create(body, finishers.json, services);
    return {
      async process(message, context) {
        const index = Number(await script.run(message, context));
        const relation = config.cases[index]?.then ?? 'Default';
        return [{ relation, message }];
      },
      destroy: () => script.dispose(),
    };
  },
};
