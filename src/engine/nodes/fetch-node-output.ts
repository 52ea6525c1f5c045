import { z } from 'zod';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({
  nodeId: z.string().trim().min(1).meta({
    label: 'Node',
    description: 'Id of the node of this chain whose last output in the run to pass on.',
  }),
});

type Config = z.infer<typeof configSchema>;

export const fetchNodeOutputNode: NodeDefinition<Config> = {
  type: 'fetchNodeOutput',
  label: 'Fetch node output',
  description:
    'Passes on the last output of another node of this run on Success; Failure when that node has not run.',
  category: 'action',
  relations: ['Success', 'Failure'],
  configSchema,
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
};
