import { z } from 'zod';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({});

export const msgTypeSwitchNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'msgTypeSwitch',
  label: 'Message type switch',
  description: 'Routes the message to the connection named after its message type; without one, to Default.',
  category: 'filter',
  relations: ['Default'],
  configSchema,
  create() {
    return {
      process: (message) => Promise.resolve([{ relation: message.type, message, otherwise: 'Default' }]),
    };
  },
};
