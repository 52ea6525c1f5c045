// GET/PUT /bindings: which agent answers which channel, account or peer. Stored in the config file
// as `bindings` (agent_id, match.account_id); the API uses the contract's names (agentId, accountId).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ConfigStore } from '../../config/config-store.ts';
import { PLATFORMS, type BindingConfig } from '../../config/schema.ts';
import { invalid } from '../../core/errors.ts';
import { idParam } from '../../http/params.ts';
import type { ChainCatalog } from '../../chains/chain-catalog.ts';

const bindingBody = z.strictObject({
  agentId: idParam,
  match: z
    .strictObject({
      default: z.boolean().optional(),
      channel: z.enum(PLATFORMS).optional(),
      accountId: idParam.optional(),
      peer: z.string().min(1).max(200).optional(),
    })
    .default({}),
});
const bindingsBody = z.strictObject({ bindings: z.array(bindingBody).max(1000) });

function toView(binding: BindingConfig) {
  const { account_id: accountId, ...match } = binding.match;
  return { agentId: binding.agent_id, match: { ...match, ...(accountId ? { accountId } : {}) } };
}

function toFile(binding: z.infer<typeof bindingBody>): Record<string, unknown> {
  const { accountId, ...match } = binding.match;
  const entries = Object.entries({ ...match, account_id: accountId }).filter(
    ([, value]) => value !== undefined,
  );
  return { agent_id: binding.agentId, match: Object.fromEntries(entries) };
}

export function registerBindingRoutes(app: FastifyInstance, store: ConfigStore, chains: ChainCatalog): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['channels'];
  api.get('/api/v1/bindings', { schema: { tags } }, async () => ({
    bindings: store.current.bindings.map(toView),
  }));
  api.put('/api/v1/bindings', { schema: { tags, body: bindingsBody } }, async (request) => {
    const { bindings } = request.body;
    for (const [index, binding] of bindings.entries()) {
      if (!chains.list({ kind: 'agent' }).some((agent) => agent.ruleChain['id'] === binding.agentId)) {
        throw invalid(`bindings.${index}.agentId: agent "${binding.agentId}" not found`);
      }
      if (binding.match.accountId && !binding.match.channel) {
        throw invalid(`bindings.${index}.match: accountId needs channel`);
      }
    }
    await store.update((editor) => editor.set(['bindings'], bindings.map(toFile)));
    return { bindings: store.current.bindings.map(toView) };
  });
}
