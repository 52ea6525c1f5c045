import { z } from 'zod';
import { defineNode } from './define-node.ts';
import { requiredText } from './config-fields.ts';

const configSchema = z.object({
  nodeId: requiredText('Node', 'Id of the node of this chain whose last output in the run to pass on.'),
});

export const fetchNodeOutputNode = defineNode(configSchema, {
  type: 'fetchNodeOutput',
  label: 'Fetch node output',
  description:
    'Passes on the last output of another node of this run on Success; Failure when that node has not run.',
  category: 'action',
  relations: ['Success', 'Failure'],
  outputRefs: (config) => [config.nodeId],
  create(config) {
    return {
      process(message, context) {
        const output = context.nodeOutput?.(config.nodeId);
        if (!output) throw new Error(`node ${config.nodeId} output not found`);
        return Promise.resolve([
          { relation: 'Success', message: { ...output, metadata: { ...output.metadata } } },
        ]);
      },
    };
  },
});
