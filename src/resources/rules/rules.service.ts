// Rule chains over the chain catalogue: every chain (/rules), or one agent's rule chains
// (/agents/{agentId}/rules, with agentId); execution and the node components.
import type { ChainCatalog, ChainView, ListFilter, Scope } from '../../chains/chain-catalog.ts';
import { AppError } from '../../core/errors.ts';
import { componentList, type ComponentList } from '../../engine/components.ts';
import type { NodeRegistry } from '../../engine/registry.ts';
import type { RuleMessage } from '../../engine/types.ts';
import { reattributed } from '../../model-providers/caller.ts';

/** Without an agent: any chain; with one: that agent's rule chains (404 for an unknown agent). */
function scopeOf(agentId: string | undefined): Scope {
  return agentId === undefined ? { kind: 'any' } : { kind: 'rule', agentId };
}

export class RulesService {
  constructor(
    private readonly chains: ChainCatalog,
    private readonly registry: NodeRegistry,
    /** Time limit of one synchronous run: server.request_timeout_ms, read at each run. */
    readonly runTimeoutMs: () => number,
    /** Names of the global properties, listed for the editor's `${global.x}` completion. */
    private readonly globalNames: () => string[] = () => [],
  ) {}

  list(agentId: string | undefined, filter: ListFilter): ChainView[] {
    return this.chains.list(scopeOf(agentId), filter);
  }

  get(id: string, agentId?: string): ChainView {
    return this.chains.get(id, scopeOf(agentId));
  }

  create(body: unknown, agentId?: string): Promise<ChainView> {
    return this.chains.create(body, scopeOf(agentId));
  }

  update(id: string, body: unknown, agentId?: string): Promise<ChainView> {
    return this.chains.update(id, body, scopeOf(agentId));
  }

  remove(id: string, agentId?: string): Promise<void> {
    return this.chains.remove(id, scopeOf(agentId));
  }

  reload(id: string, agentId?: string): Promise<ChainView> {
    return this.chains.reload(id, scopeOf(agentId));
  }

  /** Runs a chain once with a message of `messageType`; a run that ends in failure is a 400 with the chain's error. */
  async execute(
    id: string,
    data: string | object,
    metadata: Record<string, string>,
    signal: AbortSignal,
    messageType = '',
  ): Promise<RuleMessage[]> {
    // Model calls of a chain run by hand are metered as the chain's, on the `rules` channel.
    const caller = reattributed(undefined, { agentId: id, channel: 'rules' });
    const result = await this.chains.execute(id, data, metadata, { signal, turn: { caller } }, messageType);
    if (result.outcome === 'failure') throw new AppError('invalid', result.error ?? 'the rule chain failed');
    return result.results;
  }

  /** RuleGo's editor list: `{endpoints, nodes, tools, builtins}`. */
  components(): ComponentList {
    return componentList(this.registry, this.globalNames());
  }
}
