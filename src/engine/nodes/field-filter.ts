import { z } from 'zod';
import { commaList, flag, optionalText } from './config-fields.ts';
import { defineNode } from './define-node.ts';

const configSchema = z.object({
  checkAllKeys: flag('All fields', 'true: every named field must exist; false: one is enough.'),
  dataNames: optionalText('Data fields', 'Comma-separated top-level fields of the JSON data.'),
  metadataNames: optionalText('Metadata fields', 'Comma-separated metadata keys.'),
});

export const fieldFilterNode = defineNode(configSchema, {
  type: 'fieldFilter',
  label: 'Field filter',
  description: 'Routes to True when the named data fields and metadata keys exist, else False.',
  category: 'filter',
  relations: ['True', 'False', 'Failure'],
  create(config) {
    const dataNames = commaList(config.dataNames);
    const metadataNames = commaList(config.metadataNames);
    return {
      process(message) {
        // As RuleGo: only JSON data is read (a JSON that is not an object fails); other data has no fields.
        let data: Record<string, unknown> | undefined;
        if (message.dataType === 'JSON') {
          const parsed = JSON.parse(message.data) as unknown;
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            throw new Error('data is not a JSON object');
          }
          data = parsed as Record<string, unknown>;
        }
        const inData = (name: string): boolean => data !== undefined && Object.hasOwn(data, name);
        const inMetadata = (name: string): boolean => Object.hasOwn(message.metadata, name);
        const holds = config.checkAllKeys
          ? metadataNames.every(inMetadata) && dataNames.every(inData)
          : metadataNames.some(inMetadata) || dataNames.some(inData);
        return Promise.resolve([{ relation: holds ? 'True' : 'False', message }]);
      },
    };
  },
});
