// Builders for the rule chains and agents that tests send to the API or load into an engine: a chain
// in a line, and an agent made from the same template a new agent starts from, with overrides.
import type { z } from 'zod';
import { agentTemplate } from '../../src/chains/agent-template.ts';
import type { toolEntrySchema } from '../../src/engine/ai/agent-tools.ts';
import type { modelParamsSchema } from '../../src/engine/nodes/ai-agent.ts';

export interface NodeSpec {
  id: string;
  type: string;
  name?: string;
  debugMode?: boolean;
  configuration?: Record<string, unknown>;
  additionalInfo?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `[fromId, relation, toId]` */
export type Link = [from: string, relation: string, to: string];

export interface Connection {
  fromId: string;
  toId: string;
  type: string;
}

export interface ChainDefinition {
  ruleChain: {
    id: string;
    name: string;
    debugMode?: boolean;
    disabled?: boolean;
    configuration?: { vars: Record<string, string> };
    additionalInfo?: Record<string, unknown>;
  };
  metadata: { firstNodeIndex?: number; nodes: NodeSpec[]; connections: Connection[] };
}

export interface ChainOptions {
  /** Default: the id. */
  name?: string;
  firstNodeIndex?: number;
  debugMode?: boolean;
  disabled?: boolean;
  /** The chain's `${vars.*}`, kept in `ruleChain.configuration.vars`. */
  vars?: Record<string, string>;
  /** `additionalInfo.category`: `agents` marks an agent. */
  category?: string;
  /** Further `ruleChain.additionalInfo` keys (description, inputSchema, editor layout). */
  additionalInfo?: Record<string, unknown>;
}

/** A rule chain of the given nodes, linked `[from, relation, to]`. */
export function chainDefinition(
  id: string,
  nodes: NodeSpec[],
  links: Link[] = [],
  options: ChainOptions = {},
): ChainDefinition {
  const definition: ChainDefinition = {
    ruleChain: { id, name: options.name ?? id },
    metadata: { nodes, connections: links.map(connection) },
  };
  if (options.firstNodeIndex !== undefined) definition.metadata.firstNodeIndex = options.firstNodeIndex;
  applyChainOptions(definition, options);
  return definition;
}

export type ToolSpec = z.input<typeof toolEntrySchema>;

export interface AgentOptions extends Omit<ChainOptions, 'firstNodeIndex'> {
  systemPrompt?: string;
  /** Provider URL, key and model of the agent node; empty (the template's) means the default provider. */
  url?: string;
  key?: string;
  model?: string;
  /** Replaces the template's file tools. */
  tools?: ToolSpec[];
  params?: z.input<typeof modelParamsSchema>;
  maxStep?: number;
  maxToolOutputLength?: number;
  /** Nodes after the template's `agent` and `reply`, linked by `links`. */
  nodes?: NodeSpec[];
  links?: Link[];
}

/** The agent node's configuration keys that AgentOptions may override. */
const AGENT_KEYS = [
  'systemPrompt',
  'url',
  'key',
  'model',
  'tools',
  'params',
  'maxStep',
  'maxToolOutputLength',
] as const;

/** An agent from the agent template (`agent` -> `reply`), named after its id unless told. */
export function agentDefinition(id: string, options: AgentOptions = {}): ChainDefinition {
  const definition = agentTemplate(id, options.name ?? id) as unknown as ChainDefinition;
  const agent = definition.metadata.nodes[0];
  if (agent?.type !== 'ai/agent')
    throw new Error('the agent template no longer starts with its ai/agent node');
  const overrides = AGENT_KEYS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]);
  agent.configuration = { ...agent.configuration, ...Object.fromEntries(overrides) };
  definition.metadata.nodes.push(...(options.nodes ?? []));
  definition.metadata.connections.push(...(options.links ?? []).map(connection));
  applyChainOptions(definition, options);
  return definition;
}

function connection([fromId, type, toId]: Link): Connection {
  return { fromId, toId, type };
}

function applyChainOptions(definition: ChainDefinition, options: ChainOptions): void {
  const { ruleChain } = definition;
  if (options.debugMode !== undefined) ruleChain.debugMode = options.debugMode;
  if (options.disabled !== undefined) ruleChain.disabled = options.disabled;
  if (options.vars !== undefined) ruleChain.configuration = { vars: options.vars };
  if (options.category !== undefined || options.additionalInfo !== undefined)
    ruleChain.additionalInfo = {
      ...ruleChain.additionalInfo,
      ...(options.category === undefined ? {} : { category: options.category }),
      ...options.additionalInfo,
    };
}
