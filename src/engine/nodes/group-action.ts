import { z } from 'zod';
import { goJson } from '../go-json.ts';
import { readData } from '../message.ts';
import type { NodeContext, NodeDefinition, NodeOutput, RuleMessage } from '../types.ts';

/** RuleGo's default wait, also used for a timeout of 0 or less. */
const DEFAULT_TIMEOUT_S = 30;

const configSchema = z.object({
  nodeIds: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).meta({
    label: 'Nodes',
    description: 'Ids of the nodes to call at once: a comma-separated list or an array.',
  }),
  matchRelationType: z.string().default('Success').meta({
    label: 'Match relation',
    description: 'The relation a node must end with to count as matched; empty is Success.',
  }),
  matchNum: z.number().int().default(0).meta({
    label: 'Match count',
    description: 'Matched nodes needed for Success; 0 or more than the nodes: all of them.',
  }),
  timeout: z.number().default(DEFAULT_TIMEOUT_S).meta({
    label: 'Timeout (s)',
    description: 'Seconds to wait for the nodes; 0 or less: 30.',
  }),
  mergeToMap: z.boolean().default(false).meta({
    label: 'Merge to map',
    description:
      "Merge the nodes' object data into one object (other data under the node id) instead of a list of {msg, err, nodeId}.",
  }),
});

type Config = z.infer<typeof configSchema>;

interface Outcome {
  nodeId: string;
  relation: string;
  message: RuleMessage;
  error: string;
}

function idsOf(config: Config): string[] {
  const list = typeof config.nodeIds === 'string' ? config.nodeIds.split(',') : config.nodeIds.map(String);
  return list.map((id) => id.trim()).filter((id) => id !== '');
}

export const groupActionNode: NodeDefinition<Config> = {
  type: 'groupAction',
  label: 'Group action',
  description:
    'Calls several nodes at once (only those nodes, not what follows them); Success when enough of them end with the match relation, else Failure.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  configSchema,
  nodeRefs: idsOf,
  create(config) {
    const ids = idsOf(config);
    const relation = config.matchRelationType.trim() || 'Success';
    const needed = config.matchNum <= 0 || config.matchNum > ids.length ? ids.length : config.matchNum;
    const timeoutMs = (config.timeout > 0 ? config.timeout : DEFAULT_TIMEOUT_S) * 1000;
    return {
      async process(message, context) {
        if (ids.length === 0) throw new Error('nodeIds is empty');
        const outcomes: Array<Outcome | undefined> = new Array<Outcome | undefined>(ids.length);
        const matched = await new Promise<boolean>((resolve, reject) => {
          let ended = 0;
          let hits = 0;
          const timer = setTimeout(() => reject(new Error('context deadline exceeded')), timeoutMs);
          const finish = (result: boolean) => {
            clearTimeout(timer);
            resolve(result);
          };
          ids.forEach((nodeId, index) => {
            call(context, nodeId, message).then(
              (outcome) => {
                outcomes[index] = outcome;
                ended += 1;
                if (outcome.relation === relation) hits += 1;
                if (hits >= needed) finish(true);
                else if (ended >= ids.length) finish(false);
              },
              (error: unknown) => {
                clearTimeout(timer);
                reject(error instanceof Error ? error : new Error(String(error)));
              },
            );
          });
        });
        // A snapshot: nodes still running when the match was reached are left out, as in RuleGo.
        const arrived = outcomes.filter((outcome): outcome is Outcome => outcome !== undefined);
        const merged = mergeOutcomes(message, arrived, config.mergeToMap);
        return [{ relation: matched ? 'Success' : 'Failure', message: merged }];
      },
    };
  },
};

async function call(context: NodeContext, nodeId: string, message: RuleMessage): Promise<Outcome> {
  if (!context.callNode) throw new Error('this engine cannot call a single node');
  const outputs: NodeOutput[] = await context.callNode(nodeId, message);
  const first = outputs[0];
  const relation = first?.relation ?? '';
  const result = first?.message ?? message;
  const error = relation === 'Failure' ? (result.metadata['errorMsg'] ?? 'failure') : '';
  return { nodeId, relation, message: result, error };
}

function mergeOutcomes(message: RuleMessage, outcomes: Outcome[], toMap: boolean): RuleMessage {
  const metadata = { ...message.metadata };
  for (const outcome of outcomes) if (outcome.error === '') Object.assign(metadata, outcome.message.metadata);
  if (toMap) {
    const map: Record<string, unknown> = {};
    for (const outcome of outcomes) {
      const value = readData(outcome.message);
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      if (outcome.message.dataType === 'JSON' && isObject) Object.assign(map, value);
      else map[outcome.nodeId] = value;
    }
    // A Go map in RuleGo: keys sorted.
    return { ...message, dataType: 'JSON', data: goJson(map), metadata };
  }
  const records = outcomes.map((outcome) => {
    const { ts, id, dataType, type, data: text } = outcome.message;
    return {
      msg: { ts, id, dataType, type, data: text, metadata: {} },
      err: outcome.error,
      nodeId: outcome.nodeId,
    };
  });
  return { ...message, dataType: 'JSON', data: JSON.stringify(records), metadata };
}
