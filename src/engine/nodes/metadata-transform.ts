import { z } from 'zod';
import { compileMapping, exprText } from '../expr-template.ts';
import type { NodeDefinition } from '../types.ts';
import { nodeEnvOf } from './node-env.ts';

const configSchema = z.object({
  mapping: z.record(z.string(), z.string()).default({}).meta({
    label: 'Mapping',
    description: 'Metadata key to expr-lang expression, e.g. {"temperature": "msg.temperature"}.',
  }),
  isNew: z.boolean().default(false).meta({
    label: 'Replace all',
    description:
      'true: the metadata becomes the mapped keys only; false: the mapped keys are set or updated.',
  }),
});

export const metadataTransformNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'metadataTransform',
  label: 'Metadata transform',
  description: 'Sets metadata keys to the values of expr-lang expressions; the data is unchanged.',
  category: 'transform',
  relations: ['Success', 'Failure'],
  configSchema,
  create(config, factory) {
    const mapping = compileMapping(config.mapping, `node "${factory.nodeId}"`);
    const env = nodeEnvOf(factory);
    return {
      process(message, context) {
        const mapped: Record<string, string> = {};
        for (const [key, value] of Object.entries(mapping(env(message, context))))
          mapped[key] = exprText(value);
        const metadata = config.isNew ? mapped : { ...message.metadata, ...mapped };
        return Promise.resolve([{ relation: 'Success', message: { ...message, metadata } }]);
      },
    };
  },
};
