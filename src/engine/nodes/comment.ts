import { z } from 'zod';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.looseObject({});

export const commentNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'comment',
  label: 'Comment',
  description: 'A note on the chain for the editor; passes the message on unchanged with Success.',
  category: 'common',
  relations: ['Success'],
  configSchema,
  create() {
    return { process: (message) => Promise.resolve([{ relation: 'Success', message }]) };
  },
};
