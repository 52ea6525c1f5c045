import { z } from 'zod';
import { finishers, MessageScript, scriptScope } from '../message-script.ts';
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
  description:
    'Routes the message to every relation named by a JavaScript function (Default for one not connected).',
  category: 'filter',
  relations: ['Default', 'Failure'],
  configSchema,
  async create(config, { vars, services }) {
    const script = await MessageScript.create(
      config.jsScript,
      finishers.relationArray,
      services,
      scriptScope(vars, services),
    );
    return {
      async process(message, context) {
        const relations = JSON.parse(await script.run(message, context)) as string[];
        // As RuleGo's TellNextOrElse: a relation without a connection goes to Default instead.
        return relations.map((relation) => ({ relation, message, otherwise: 'Default' }));
      },
      destroy: () => script.dispose(),
    };
  },
};
