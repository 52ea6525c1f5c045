import { z } from 'zod';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({});

export const forkNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'fork',
  label: 'Fork',
  description: 'Passes the message on Success; every Success connection runs as its own branch.',
  category: 'flow',
  relations: ['Success'],
  configSchema,
  create: () => ({ process: (message) => Promise.resolve([{ relation: 'Success', message }]) }),
};
