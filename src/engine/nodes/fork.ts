import { defineNode, noConfig, passOn } from './define-node.ts';

export const forkNode = defineNode(noConfig, {
  type: 'fork',
  label: 'Fork',
  description: 'Passes the message on Success; every Success connection runs as its own branch.',
  category: 'flow',
  relations: ['Success'],
  create: passOn,
});
