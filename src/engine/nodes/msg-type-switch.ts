import { defineNode, noConfig, stateless } from './define-node.ts';

export const msgTypeSwitchNode = defineNode(noConfig, {
  type: 'msgTypeSwitch',
  label: 'Message type switch',
  description: 'Routes the message to the connection named after its message type; without one, to Default.',
  category: 'filter',
  relations: ['Default'],
  create: stateless((message) => [{ relation: message.type, message, otherwise: 'Default' }]),
});
