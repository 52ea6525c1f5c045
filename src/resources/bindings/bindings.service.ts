// Which agent answers which channel, account or peer: the `bindings` list of the config file,
// shown and replaced whole through the API.
import type { ConfigStore } from '../../config/config-store.ts';
import type { BindingConfig } from '../../config/schema.ts';
import { invalid, isAppError } from '../../core/errors.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type { Binding } from './bindings.schema.ts';

function toView(binding: BindingConfig) {
  const { account_id: accountId, ...match } = binding.match;
  return { agentId: binding.agent_id, match: { ...match, ...(accountId ? { accountId } : {}) } };
}

function toFile(binding: Binding): Record<string, unknown> {
  const { accountId, ...match } = binding.match;
  const entries = Object.entries({ ...match, account_id: accountId }).filter(
    ([, value]) => value !== undefined,
  );
  return { agent_id: binding.agentId, match: Object.fromEntries(entries) };
}

export class BindingsService {
  constructor(
    private readonly store: ConfigStore,
    private readonly agents: AgentCheck,
  ) {}

  list() {
    return { bindings: this.store.current.bindings.map(toView) };
  }

  /** Replaces every binding; each must name an existing agent, and an accountId its channel. */
  async replace(bindings: Binding[]) {
    for (const [index, binding] of bindings.entries()) {
      try {
        this.agents.requireAgent(binding.agentId);
      } catch (error) {
        // In a body, an unknown agent is a bad field (400), not a missing resource.
        if (isAppError(error) && error.kind === 'not-found')
          throw invalid(`bindings.${index}.agentId: ${error.message}`);
        throw error;
      }
      if (binding.match.accountId && !binding.match.channel) {
        throw invalid(`bindings.${index}.match: accountId needs channel`);
      }
    }
    await this.store.update((editor) => editor.set(['bindings'], bindings.map(toFile)));
    return this.list();
  }
}
