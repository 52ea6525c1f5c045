import { z } from 'zod';
import { defineNode, passOn } from './define-node.ts';

export const commentNode = defineNode(z.looseObject({}), {
  type: 'comment',
  label: 'Comment',
  description: 'A note on the chain for the editor; passes the message on unchanged with Success.',
  category: 'common',
  relations: ['Success'],
  create: passOn,
});
