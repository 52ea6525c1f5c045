import { z } from 'zod';
import { finishers, scriptNode } from '../message-script.ts';
import { silentLogger } from '../../core/logger.ts';
import { defineNode } from './define-node.ts';

/** RuleGo's default format script. */
export const DEFAULT_LOG_SCRIPT =
  "return 'Incoming message:\\n' + JSON.stringify(msg) + '\\nIncoming metadata:\\n' + JSON.stringify(metadata);";

const configSchema = z.object({
  jsScript: z
    .string()
    .nullish()
    .transform((text) => (text == null || text.trim() === '' ? DEFAULT_LOG_SCRIPT : text))
    .meta({
      label: 'Format script',
      description:
        'Body of function ToString(msg, metadata, msgType, dataType); must return a string, the text to log.',
    }),
});

export const logNode = defineNode(configSchema, {
  type: 'log',
  label: 'Log',
  description: 'Writes the text of its script to the service log and passes the message on.',
  category: 'action',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const { chainId, nodeId } = factory;
    const logger = factory.services.logger ?? silentLogger;
    // As RuleGo: the script always runs; a script error or a result that is not a string is a Failure.
    return scriptNode(config.jsScript, finishers.string, factory, (text, message) => {
      logger.info({ chainId, nodeId, messageId: message.id }, text);
      return [{ relation: 'Success', message }];
    });
  },
});
