import { defineNode, noConfig, passOn } from './define-node.ts';

export const endNode = defineNode(noConfig, {
  type: 'end',
  label: 'End',
  description: 'Marks the message as the reply of the chain; nothing after it runs.',
  category: 'flow',
  relations: [],
  role: 'end',
  create: passOn,
});
