import { z } from 'zod';
import type { NodeContext, NodeOutput, RuleMessage } from '../types.ts';
import { callAll, endRecord, idsOf, mergeToMap, nodeIdList, timeoutField } from './node-group.ts';
import { defineNode } from './define-node.ts';
import { flag } from './config-fields.ts';

const configSchema = z.object({
  nodeIds: nodeIdList.meta({
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
  timeout: timeoutField('Seconds to wait for the nodes; 0 or less: 30.'),
  mergeToMap: flag(
    'Merge to map',
    "Merge the nodes' object data into one object (other data under the node id) instead of a list of {msg, err, nodeId}.",
  ),
});

interface Outcome {
  nodeId: string;
  relation: string;
  message: RuleMessage;
  error: string;
}

export const groupActionNode = defineNode(configSchema, {
  type: 'groupAction',
  label: 'Group action',
  description:
    'Calls several nodes at once (only those nodes, not what follows them); Success when enough of them end with the match relation, else Failure.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  nodeRefs: idsOf,
  create(config) {
    const ids = idsOf(config);
    const relation = config.matchRelationType.trim() || 'Success';
    const needed = config.matchNum <= 0 || config.matchNum > ids.length ? ids.length : config.matchNum;
    return {
      async process(message, context) {
        if (ids.length === 0) throw new Error('nodeIds is empty');
        const outcomes: Array<Outcome | undefined> = new Array<Outcome | undefined>(ids.length);
        let hits = 0;
        const matched = await callAll(
          ids,
          config.timeout,
          (nodeId) => call(context, nodeId, message),
          (outcome, index, ended) => {
            outcomes[index] = outcome;
            if (outcome.relation === relation) hits += 1;
            if (hits >= needed) return true;
            return ended >= ids.length ? false : undefined;
          },
        );
        // A snapshot: nodes still running when the match was reached are left out, as in RuleGo.
        const arrived = outcomes.filter((outcome): outcome is Outcome => outcome !== undefined);
        const merged = mergeOutcomes(message, arrived, config.mergeToMap);
        return [{ relation: matched ? 'Success' : 'Failure', message: merged }];
      },
    };
  },
});

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
  const data = toMap
    ? mergeToMap(outcomes)
    : JSON.stringify(outcomes.map((outcome) => endRecord(outcome.message, outcome.error, outcome.nodeId)));
  return { ...message, dataType: 'JSON', data, metadata };
}
