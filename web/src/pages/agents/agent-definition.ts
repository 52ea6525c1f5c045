// Reading and changing an agent definition (a rule chain with one ai/agent node) without mutating it.
import type { AgentDefinition } from '../../types.ts';

export interface ToolEntry {
  type: 'builtin' | 'rulechain' | 'agent' | 'mcp' | 'a2a';
  name?: string;
  description?: string;
  targetId?: string;
  config?: Record<string, unknown>;
  timeout?: number;
  [key: string]: unknown;
}

export interface AgentConfig {
  url?: string;
  key?: string;
  model?: string;
  systemPrompt?: string;
  maxStep?: number;
  maxToolOutputLength?: number;
  params?: Record<string, unknown>;
  tools?: ToolEntry[];
  [key: string]: unknown;
}

function agentNodeIndex(definition: AgentDefinition): number {
  return (definition.metadata.nodes ?? []).findIndex((node) => node['type'] === 'ai/agent');
}

/** The configuration of the agent's ai/agent node, or undefined for a chain without one. */
export function agentConfig(definition: AgentDefinition): AgentConfig | undefined {
  const node = definition.metadata.nodes?.[agentNodeIndex(definition)];
  if (!node) return undefined;
  const configuration = node['configuration'];
  return typeof configuration === 'object' && configuration !== null ? (configuration as AgentConfig) : {};
}

export function withAgentConfig(definition: AgentDefinition, change: Partial<AgentConfig>): AgentDefinition {
  const index = agentNodeIndex(definition);
  const nodes = [...(definition.metadata.nodes ?? [])];
  const node = nodes[index];
  if (!node) return definition;
  nodes[index] = { ...node, configuration: { ...agentConfig(definition), ...change } };
  return { ...definition, metadata: { ...definition.metadata, nodes } };
}

export function withRuleChain(definition: AgentDefinition, change: Record<string, unknown>): AgentDefinition {
  return { ...definition, ruleChain: { ...definition.ruleChain, ...change } };
}

export function description(definition: AgentDefinition): string {
  const value = definition.ruleChain.additionalInfo?.['description'];
  return typeof value === 'string' ? value : '';
}

export function withDescription(definition: AgentDefinition, text: string): AgentDefinition {
  return withRuleChain(definition, {
    additionalInfo: { ...definition.ruleChain.additionalInfo, description: text },
  });
}

/** How the server shows a secret stored in a definition; sent back, it keeps the stored value. */
export const SECRET_MARK = '***';

/** The provider a node's url template names (`${global.models.providers.<id>.base_url}`), or '' for the default. */
export function providerOf(config: AgentConfig): string {
  const match = /^\$\{global\.models\.providers\.([A-Za-z0-9_-]+)\.base_url\}$/.exec(config.url ?? '');
  return match?.[1] ?? (config.url ? 'custom' : '');
}

export function providerTemplates(providerId: string): Pick<AgentConfig, 'url' | 'key'> {
  if (providerId === '') return { url: '', key: '' };
  return {
    url: `\${global.models.providers.${providerId}.base_url}`,
    key: `\${global.models.providers.${providerId}.api_key}`,
  };
}
