import { z } from 'zod';
import type { NodeDefinition } from '../types.ts';

/** RuleGo's default wait, also used for a timeout of 0 or less. */
const DEFAULT_TIMEOUT_S = 30;

const configSchema = z.object({
  allMatches: z.boolean().default(false).meta({
    label: 'All match',
    description: 'True: every filter must end with True (AND); false: one True is enough (OR).',
  }),
  // As RuleGo: left out, the chain loads and each message fails with "nodeIds is empty".
  nodeIds: z
    .union([z.string(), z.array(z.union([z.string(), z.number()]))])
    .default('')
    .meta({
      label: 'Filter nodes',
      description: 'Ids of the filter nodes to call at once: a comma-separated list or an array.',
    }),
  timeout: z.number().default(DEFAULT_TIMEOUT_S).meta({
    label: 'Timeout (s)',
    description: 'Seconds to wait for the filters; 0 or less: 30.',
  }),
});

type Config = z.infer<typeof configSchema>;

function idsOf(config: Config): string[] {
  const list = typeof config.nodeIds === 'string' ? config.nodeIds.split(',') : config.nodeIds.map(String);
  return list.map((id) => id.trim()).filter((id) => id !== '');
}

export const groupFilterNode: NodeDefinition<Config> = {
  type: 'groupFilter',
  label: 'Group filter',
  description:
    'Calls several filter nodes at once (only those nodes); True when all (allMatches) or any of them end with True, else False.',
  category: 'filter',
  relations: ['True', 'False', 'Failure'],
  configSchema,
  nodeRefs: idsOf,
  create(config) {
    const ids = idsOf(config);
    const timeoutMs = (config.timeout > 0 ? config.timeout : DEFAULT_TIMEOUT_S) * 1000;
    return {
      async process(message, context) {
        if (ids.length === 0) throw new Error('nodeIds is empty');
        const callNode = context.callNode?.bind(context);
        if (!callNode) throw new Error('this engine cannot call a single node');
        const result = await new Promise<boolean>((resolve, reject) => {
          let ended = 0;
          let trues = 0;
          const timer = setTimeout(() => reject(new Error('context deadline exceeded')), timeoutMs);
          const finish = (value: boolean) => {
            clearTimeout(timer);
            resolve(value);
          };
          for (const nodeId of ids) {
            callNode(nodeId, message).then(
              (outputs) => {
                ended += 1;
                const isTrue = outputs[0]?.relation === 'True';
                if (isTrue) trues += 1;
                if (config.allMatches) {
                  if (!isTrue) finish(false);
                  else if (trues >= ids.length) finish(true);
                } else if (isTrue) finish(true);
                else if (ended >= ids.length) finish(false);
              },
              (error: unknown) => {
                clearTimeout(timer);
                reject(error instanceof Error ? error : new Error(String(error)));
              },
            );
          }
        });
        return [{ relation: result ? 'True' : 'False', message }];
      },
    };
  },
};
