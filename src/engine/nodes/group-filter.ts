import { z } from 'zod';
import { callAll, idsOf, nodeIdList, timeoutField } from './node-group.ts';
import { defineNode } from './define-node.ts';
import { flag } from './config-fields.ts';

const configSchema = z.object({
  allMatches: flag(
    'All match',
    'True: every filter must end with True (AND); false: one True is enough (OR).',
  ),
  // As RuleGo: left out, the chain loads and each message fails with "nodeIds is empty".
  nodeIds: nodeIdList.default('').meta({
    label: 'Filter nodes',
    description: 'Ids of the filter nodes to call at once: a comma-separated list or an array.',
  }),
  timeout: timeoutField('Seconds to wait for the filters; 0 or less: 30.'),
});

export const groupFilterNode = defineNode(configSchema, {
  type: 'groupFilter',
  label: 'Group filter',
  description:
    'Calls several filter nodes at once (only those nodes); True when all (allMatches) or any of them end with True, else False.',
  category: 'filter',
  relations: ['True', 'False', 'Failure'],
  nodeRefs: idsOf,
  create(config) {
    const ids = idsOf(config);
    return {
      async process(message, context) {
        if (ids.length === 0) throw new Error('nodeIds is empty');
        const callNode = context.callNode?.bind(context);
        if (!callNode) throw new Error('this engine cannot call a single node');
        let trues = 0;
        const result = await callAll(
          ids,
          config.timeout,
          (nodeId) => callNode(nodeId, message),
          (outputs, _index, ended) => {
            const isTrue = outputs[0]?.relation === 'True';
            if (isTrue) trues += 1;
            if (config.allMatches) {
              if (!isTrue) return false;
              return trues >= ids.length ? true : undefined;
            }
            if (isTrue) return true;
            return ended >= ids.length ? false : undefined;
          },
        );
        return [{ relation: result ? 'True' : 'False', message }];
      },
    };
  },
});
