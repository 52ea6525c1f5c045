// Agents over the chain catalogue: the chains of the agent scope. Also the one check that an agent
// exists, which every resource under /agents/{agentId} and every body naming an agent uses.
import type { ChainCatalog, ChainView, ListFilter } from '../../chains/chain-catalog.ts';

export interface AgentCheck {
  /** Throws not-found (404) unless `agentId` names an agent (loaded or not). */
  requireAgent(agentId: string): void;
}

const AGENTS = { kind: 'agent' } as const;

export class AgentsService implements AgentCheck {
  constructor(private readonly chains: ChainCatalog) {}

  requireAgent(agentId: string): void {
    this.chains.agents.get(agentId);
  }

  list(filter: ListFilter): ChainView[] {
    return this.chains.list(AGENTS, filter);
  }

  get(agentId: string): ChainView {
    return this.chains.get(agentId, AGENTS);
  }

  create(body: unknown): Promise<ChainView> {
    return this.chains.create(body, AGENTS);
  }

  update(agentId: string, body: unknown): Promise<ChainView> {
    return this.chains.update(agentId, body, AGENTS);
  }

  /** Deletes the agent with its rule chains; the catalogue's listeners drop its sessions and tasks. */
  remove(agentId: string): Promise<void> {
    return this.chains.remove(agentId, AGENTS);
  }

  reload(agentId: string): Promise<ChainView> {
    return this.chains.reload(agentId, AGENTS);
  }
}
