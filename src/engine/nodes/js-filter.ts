import { z } from 'zod';
import { finishers, MessageScript, scriptScope } from '../message-script.ts';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({
  jsScript: z.string().min(1).meta({
    label: 'Filter script',
    description: 'Body of function Filter(msg, metadata, msgType, dataType); return true or false.',
  }),
});

export const jsFilterNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'jsFilter',
  label: 'Script filter',
  description: 'Routes the message to True or False by the result of a JavaScript function.',
  category: 'filter',
  relations: ['True', 'False', 'Failure'],
  configSchema,
  async create(config, { vars, services }) {
    const script = await MessageScript.create(
      config.jsScript,
      finishers.strictBoolean,
      services,
      scriptScope(vars, services),
    );
    return {
      async process(message, context) {
        const relation = (await script.run(message, context)) === '1' ? 'True' : 'False';
        return [{ relation, message }];
      },
      destroy: () => script.dispose(),
    };
  },
};
