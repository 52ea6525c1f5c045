import { z } from 'zod';
import { defineNode } from './define-node.ts';
import { flag } from './config-fields.ts';

const configSchema = z.object({
  targetId: z.string().trim().min(1, 'targetId is empty').meta({
    label: 'Target',
    description: 'The node to call: its id in this chain, or chainId:nodeId for a node of another chain.',
  }),
  tellChain: flag(
    'Run what follows',
    'True: run the target and everything after it; false: only the target node.',
  ),
});

/** `{nodeId}` or `{chainId}:{nodeId}`, as RuleGo's ref node splits it. */
export function refTarget(targetId: string): { chainId: string | undefined; nodeId: string } {
  const parts = targetId.split(':').map((part) => part.trim());
  if (parts.length === 1) return { chainId: undefined, nodeId: parts[0] as string };
  if (parts.length === 2) {
    const [chainId, nodeId] = parts as [string, string];
    if (chainId === '' || nodeId === '') throw new Error('chainId or nodeId is empty');
    return { chainId, nodeId };
  }
  throw new Error("invalid targetId format, expected 'nodeId' or 'chainId:nodeId'");
}

export const refNode = defineNode(configSchema, {
  type: 'ref',
  label: 'Reference',
  description:
    'Calls a node of this chain or of another one (chainId:nodeId) and passes on what it ends with; tellChain runs what follows it too.',
  category: 'flow',
  relations: ['Success', 'Failure', 'True', 'False'],
  create(config) {
    const { chainId, nodeId } = refTarget(config.targetId);
    return {
      async process(message, context) {
        if (!context.refNode) throw new Error('this engine cannot call a node by reference');
        return context.refNode(chainId, nodeId, message, config.tellChain);
      },
    };
  },
});
