import { z } from 'zod';
import { exprText } from '../expr-template.ts';
import { lookupPath } from '../template.ts';
import { finishers, nodeScript } from '../message-script.ts';
import type { NodeOutput, RuleMessage } from '../types.ts';
import { defineNode } from './define-node.ts';

const configSchema = z.object({
  fieldName: z.string().trim().default('').meta({
    label: 'Field',
    description: 'The field to iterate, dotted (items.value); empty iterates the data itself.',
  }),
  jsScript: z.string().trim().default('').meta({
    label: 'Item filter',
    description:
      'Optional body of function ItemFilter(item, index, metadata): true sends the item on True, else False; empty sends every item on True.',
  }),
});

export const iteratorNode = defineNode(configSchema, {
  type: 'iterator',
  label: 'Iterator',
  description:
    'Sends each item of an array (or each value of an object) on as its own message on True or False, then the incoming message on Success. RuleGo deprecates it for the for node.',
  category: 'flow',
  relations: ['Success', 'Failure', 'True', 'False'],
  async create(config, factory) {
    const script =
      config.jsScript === ''
        ? undefined
        : await nodeScript(
            `const item = msg[0]; const index = msg[1];\nreturn (function ItemFilter(item, index, metadata) {\n${config.jsScript}\n})(item, index, metadata);`,
            finishers.strictBoolean,
            factory,
          );
    return {
      async process(message, context) {
        let data: unknown = message.data;
        if (message.dataType === 'JSON') {
          try {
            data = JSON.parse(message.data) as unknown;
          } catch {
            // RuleGo keeps the text when the JSON does not parse.
          }
        }
        if (config.fieldName !== '') {
          data = lookupPath(data, config.fieldName.split('.'));
          if (data === undefined || data === null) throw new Error(`field=${config.fieldName} not found`);
        }
        let entries: Array<[unknown, number | string]>;
        if (Array.isArray(data)) entries = data.map((item, index) => [item, index]);
        else if (typeof data === 'object' && data !== null) {
          entries = Object.entries(data).map(([key, item]) => [item, key]);
        } else throw new Error('value is not array or {key:value} type');
        const outputs: NodeOutput[] = [];
        for (const [item, index] of entries) {
          await context.checkpoint();
          const itemMessage: RuleMessage = {
            ...message,
            data: exprText(item),
            metadata: { ...message.metadata },
          };
          let relation = 'True';
          if (script) {
            const probe: RuleMessage = { ...message, dataType: 'JSON', data: JSON.stringify([item, index]) };
            relation = (await script.run(probe, context)) === '1' ? 'True' : 'False';
          }
          outputs.push({ relation, message: itemMessage });
        }
        outputs.push({ relation: 'Success', message: { ...message, metadata: { ...message.metadata } } });
        return outputs;
      },
      destroy: () => script?.dispose(),
    };
  },
});
