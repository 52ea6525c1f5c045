// The model an agent's ai/agent node talks to, for work done outside a turn (a manual compaction):
// the node's url, key and model resolved as the node resolves them, its window and its compaction
// settings.
import { compactionSchema, contextWindowOf, type CompactionOverride } from '../config/compaction.ts';
import { AppError } from '../core/errors.ts';
import { resolveModel } from '../engine/ai/model-target.ts';
import type { ModelRegistry } from '../model-providers/registry.ts';
import type { ModelProvider } from '../model-providers/types.ts';
import type { AgentDirectory } from '../chains/agent-directory.ts';

export interface AgentModel {
  provider: ModelProvider;
  model: string;
  window: number;
  compaction: CompactionOverride | undefined;
}

type ModelsConfig = Parameters<typeof contextWindowOf>[0];

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function agentModel(
  agents: AgentDirectory,
  models: ModelRegistry,
  globals: () => Record<string, unknown>,
  agentId: string,
): AgentModel {
  const view = agents.get(agentId);
  const nodes = (view.metadata['nodes'] ?? []) as Array<{
    type?: unknown;
    configuration?: Record<string, unknown>;
  }>;
  const node = nodes.find((entry) => entry.type === 'ai/agent');
  if (!node) throw new AppError('conflict', `agent "${agentId}" has no ai/agent node to compact with`);
  const config = node.configuration ?? {};
  const chainConfig = (view.ruleChain['configuration'] ?? {}) as { vars?: Record<string, string> };
  const { provider, model } = resolveModel(
    { url: text(config['url']), key: text(config['key']), model: text(config['model']) },
    models,
    globals,
    chainConfig.vars ?? {},
  );
  const parsed = compactionSchema.optional().safeParse(config['compaction']);
  const modelsConfig = (globals()['models'] ?? { providers: {} }) as ModelsConfig;
  return {
    provider,
    model,
    window: contextWindowOf(modelsConfig, provider.id, model),
    compaction: parsed.success ? parsed.data : undefined,
  };
}
