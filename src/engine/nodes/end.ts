import { z } from 'zod';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({});

export const endNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'end',
  label: 'End',
  description: 'Marks the message as the reply of the chain; nothing after it runs.',
  category: 'flow',
  relations: [],
  configSchema,
  role: 'end',
  create: () => ({ process: (message) => Promise.resolve([{ relation: 'Success', message }]) }),
};
