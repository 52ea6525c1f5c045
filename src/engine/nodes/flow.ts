import { z } from 'zod';
import { ID_PATTERN } from '../../core/ids.ts';
import { withErrorMessage } from '../message.ts';
import type { NodeDefinition, NodeOutput, RuleMessage } from '../types.ts';

const configSchema = z.object({
  targetId: z.string().regex(ID_PATTERN, 'must be a rule chain id').meta({
    label: 'Rule chain',
    description: 'Id of the chain to run; looked up when the message arrives.',
  }),
  extend: z.boolean().default(false).meta({
    label: 'Pass each result',
    description: 'Pass on every result of the sub-chain as its own message instead of one merged message.',
  }),
});

export const flowNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'flow',
  label: 'Sub-chain',
  description: 'Runs another rule chain with the message and passes on its results.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  configSchema,
  create(config) {
    return {
      async process(message, context) {
        const result = await context.runChain(config.targetId, message);
        if (result.outcome === 'failure') {
          return [
            { relation: 'Failure', message: withErrorMessage(message, result.error ?? 'sub-chain failed') },
          ];
        }
        if (config.extend && result.results.length > 0) {
          return result.results.map((item): NodeOutput => ({ relation: 'Success', message: item }));
        }
        return [{ relation: 'Success', message: mergeResults(message, result.results) }];
      },
    };
  },
};

/** The last result's data, with every result's metadata laid over the incoming metadata. */
function mergeResults(message: RuleMessage, results: RuleMessage[]): RuleMessage {
  const last = results.at(-1);
  if (!last) return message;
  const metadata = { ...message.metadata };
  for (const item of results) Object.assign(metadata, item.metadata);
  return { ...message, type: last.type, dataType: last.dataType, data: last.data, metadata };
}
