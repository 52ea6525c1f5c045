import { z } from 'zod';
import { finishers, MessageScript } from '../message-script.ts';
import type { EngineLogger, NodeContext, NodeDefinition, NodeServices, RuleMessage } from '../types.ts';

const configSchema = z.object({
  jsScript: z.string().optional().meta({
    label: 'Format script',
    description: 'Body of function ToString(msg, metadata, msgType, dataType); returns the text to log.',
  }),
});

export const logNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'log',
  label: 'Log',
  description: 'Writes the message to the service log and passes it on.',
  category: 'action',
  relations: ['Success', 'Failure'],
  configSchema,
  async create(config, { services, chainId, nodeId }) {
    const logger = loggerOf(services);
    const script = config.jsScript
      ? await MessageScript.create(config.jsScript, finishers.text, services)
      : undefined;
    const format = (message: RuleMessage, context: NodeContext): Promise<string> | string =>
      script
        ? script.run(message, context)
        : `${message.type} ${message.data} ${JSON.stringify(message.metadata)}`;
    return {
      async process(message, context) {
        // Without a logger there is nowhere to write, so the script is not run at all.
        if (logger) {
          const text = await format(message, context);
          logger.info({ chainId, nodeId, messageId: message.id }, text);
        }
        return [{ relation: 'Success', message }];
      },
      destroy: () => script?.dispose(),
    };
  },
};

function loggerOf(services: NodeServices): EngineLogger | undefined {
  const logger = services['logger'];
  if (typeof logger !== 'object' || logger === null) return undefined;
  return typeof (logger as Partial<EngineLogger>).info === 'function' ? (logger as EngineLogger) : undefined;
}
