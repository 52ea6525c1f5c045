import { z } from 'zod';
import { finishers, scriptNode } from '../message-script.ts';
import { defineNode } from './define-node.ts';
import { nonEmptyText } from './config-fields.ts';

const configSchema = z.object({
  jsScript: nonEmptyText(
    'Filter script',
    'Body of function Filter(msg, metadata, msgType, dataType); return true or false.',
  ),
});

export const jsFilterNode = defineNode(configSchema, {
  type: 'jsFilter',
  label: 'Script filter',
  description: 'Routes the message to True or False by the result of a JavaScript function.',
  category: 'filter',
  relations: ['True', 'False', 'Failure'],
  create: (config, factory) =>
    scriptNode(config.jsScript, finishers.strictBoolean, factory, (result, message) => [
      { relation: result === '1' ? 'True' : 'False', message },
    ]),
});
