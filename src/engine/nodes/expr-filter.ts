import { z } from 'zod';
import { finishers, MessageScript } from '../message-script.ts';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({
  expr: z.string().min(1).meta({
    label: 'Expression',
    description: 'A boolean JavaScript expression over msg, metadata, msgType and dataType.',
  }),
});

export const exprFilterNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'exprFilter',
  label: 'Expression filter',
  description: 'Routes the message to True or False by a boolean expression.',
  category: 'filter',
  relations: ['True', 'False', 'Failure'],
  configSchema,
  async create(config, { services }) {
    const script = await MessageScript.expression(config.expr, finishers.boolean, services);
    return {
      async process(message, context) {
        const relation = (await script.run(message, context)) === '1' ? 'True' : 'False';
        return [{ relation, message }];
      },
      destroy: () => script.dispose(),
    };
  },
};
