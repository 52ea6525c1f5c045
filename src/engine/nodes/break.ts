import { z } from 'zod';
import type { NodeDefinition } from '../types.ts';
import { BREAK_KEY } from './loop-body.ts';

const configSchema = z.looseObject({});

export const breakNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'break',
  label: 'Break',
  description: 'Ends the enclosing for or while loop after this iteration (sets metadata _break to 1).',
  category: 'flow',
  relations: ['Success'],
  configSchema,
  create() {
    return {
      process: (message) =>
        Promise.resolve([
          {
            relation: 'Success',
            message: { ...message, metadata: { ...message.metadata, [BREAK_KEY]: '1' } },
          },
        ]),
    };
  },
};
