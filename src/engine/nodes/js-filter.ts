import { z } from 'zod';
import { finishers, scriptNode } from '../message-script.ts';
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
  create: (config, factory) =>
    scriptNode(config.jsScript, finishers.strictBoolean, factory, (result, message) => [
      { relation: result === '1' ? 'True' : 'False', message },
    ]),
};
