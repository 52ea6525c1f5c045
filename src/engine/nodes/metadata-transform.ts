import { z } from 'zod';
import { compileMapping, exprText } from '../expr-template.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';
import { flag } from './config-fields.ts';

const configSchema = z.object({
  mapping: z.record(z.string(), z.string()).default({}).meta({
    label: 'Mapping',
    description: 'Metadata key to expr-lang expression, e.g. {"temperature": "msg.temperature"}.',
  }),
  isNew: flag(
    'Replace all',
    'true: the metadata becomes the mapped keys only; false: the mapped keys are set or updated.',
  ),
});

export const metadataTransformNode = defineNode(configSchema, {
  type: 'metadataTransform',
  label: 'Metadata transform',
  description: 'Sets metadata keys to the values of expr-lang expressions; the data is unchanged.',
  category: 'transform',
  relations: ['Success', 'Failure'],
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
});
