// Shapes of the rules and run-log answers the Rules page reads.
import type { ChainView } from '@server/chains/chain-view.ts';

export type { ChainView };
export type { LoggedMessage, NodeLog, RunLog } from '@server/engine/run-log-types.ts';

export function chainName(chain: ChainView): string {
  return typeof chain.ruleChain.name === 'string' && chain.ruleChain.name
    ? chain.ruleChain.name
    : chain.ruleChain.id;
}

/** Agents are chains too (category "agents"); they are deleted on the Agents page. */
export function isAgentChain(chain: ChainView): boolean {
  return chain.ruleChain.additionalInfo?.category === 'agents';
}

/** The editable definition: the view without its read-only status. */
export function definitionText(chain: ChainView): string {
  const { status: _status, ...definition } = chain;
  return JSON.stringify(definition, null, 2);
}

export const NEW_CHAIN_TEXT = JSON.stringify(
  {
    ruleChain: { id: 'my-chain', name: 'My chain', debugMode: true },
    metadata: {
      nodes: [
        {
          id: 'check',
          type: 'jsFilter',
          name: 'Is it warm?',
          configuration: { jsScript: 'return msg.temperature > 20;' },
        },
        {
          id: 'mark',
          type: 'jsTransform',
          name: 'Mark warm',
          configuration: {
            jsScript: "msg.warm = true;\nreturn {'msg': msg, 'metadata': metadata, 'msgType': msgType};",
          },
        },
      ],
      connections: [{ fromId: 'check', toId: 'mark', type: 'True' }],
    },
  },
  null,
  2,
);

/** A new chain with no node yet, to build in the graph. */
export const EMPTY_CHAIN_TEXT = JSON.stringify(
  {
    ruleChain: { id: 'my-chain', name: 'My chain', debugMode: true },
    metadata: { nodes: [], connections: [] },
  },
  null,
  2,
);
