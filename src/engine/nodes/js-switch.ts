import { z } from 'zod';
import { finishers, MessageScript } from '../message-script.ts';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({
  jsScript: z.string().min(1).meta({
    label: 'Switch script',
    description:
      'Body of function Switch(msg, metadata, msgType, dataType); return an array of relation names.',
  }),
});

export const jsSwitchNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'jsSwitch',
  label: 'Script switch',
  description: 'Routes the message to every relation named by a JavaScript function.',
  category: 'filter',
  relations: ['Failure'],
  configSchema,
  async create(config, { services }) {
    const script = await MessageScript.create(config.jsScript, finishers.relations, services);
    return {
      async process(message, context) {
        const relations = JSON.parse(await script.run(message, context)) as string[];
        return relations.map((relation) => ({ relation, message }));
      },
      destroy: () => script.dispose(),
    };
  },
};
