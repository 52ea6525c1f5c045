import { z } from 'zod';
import { finishers, scriptNode } from '../message-script.ts';
import { defineNode } from './define-node.ts';
import { nonEmptyText } from './config-fields.ts';

const configSchema = z.object({
  jsScript: nonEmptyText(
    'Switch script',
    'Body of function Switch(msg, metadata, msgType, dataType); return an array of relation names.',
  ),
});

export const jsSwitchNode = defineNode(configSchema, {
  type: 'jsSwitch',
  label: 'Script switch',
  description:
    'Routes the message to every relation named by a JavaScript function (Default for one not connected).',
  category: 'filter',
  relations: ['Default', 'Failure'],
  create: (config, factory) =>
    scriptNode(config.jsScript, finishers.relationArray, factory, (result, message) =>
      // As RuleGo's TellNextOrElse: a relation without a connection goes to Default instead.
      (JSON.parse(result) as string[]).map((relation) => ({ relation, message, otherwise: 'Default' })),
    ),
});
