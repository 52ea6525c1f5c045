import { z } from 'zod';
import { defineNode, stateless } from './define-node.ts';
import { BREAK_KEY } from './loop-body.ts';

export const breakNode = defineNode(z.looseObject({}), {
  type: 'break',
  label: 'Break',
  description: 'Ends the enclosing for or while loop after this iteration (sets metadata _break to 1).',
  category: 'flow',
  relations: ['Success'],
  create: stateless((message) => [
    { relation: 'Success', message: { ...message, metadata: { ...message.metadata, [BREAK_KEY]: '1' } } },
  ]),
});
