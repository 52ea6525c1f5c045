// Where a refused agent definition's problem belongs: the server names the field
// (`rule chain "x": node "agent": configuration.maxStep: must be at least 1`,
// `invalid rule chain: ruleChain.id: must be ...`), and the editor shows it under that field, on
// its tab, in words. A problem no field of the editor shows stays above the tabs.
import { ApiError } from '../../api.ts';

export type AgentTab = 'basic' | 'model' | 'prompt' | 'tools';

export interface AgentProblem {
  /** The editor's name of the field: id, name, description, model, key, maxStep, params.temperature, systemPrompt, tools. */
  field?: string;
  tab?: AgentTab;
  problem: string;
}

const MODEL_FIELDS = new Set(['url', 'key', 'model', 'maxStep', 'maxToolOutputLength']);

function place(path: string, problem: string): AgentProblem | undefined {
  if (path === 'ruleChain.id' || path === 'ruleChain.name')
    return { field: path.slice(10), tab: 'basic', problem };
  if (path === 'ruleChain.additionalInfo.description') return { field: 'description', tab: 'basic', problem };
  if (path === 'tools' || path.startsWith('tools.')) return { field: 'tools', tab: 'tools', problem };
  const config = /^configuration\.(.+)$/.exec(path)?.[1];
  if (config === undefined) return undefined;
  if (config === 'tools' || config.startsWith('tools.')) return { field: 'tools', tab: 'tools', problem };
  if (config === 'systemPrompt') return { field: 'systemPrompt', tab: 'prompt', problem };
  if (MODEL_FIELDS.has(config)) return { field: config, tab: 'model', problem };
  if (config === 'params.temperature' || config === 'params.maxTokens')
    return { field: config, tab: 'model', problem };
  return undefined;
}

/** Where the problem of a failed save belongs, with what is wrong in words. */
export function agentProblem(error: unknown): AgentProblem {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError && error.status === 409 && /^id "[^"]*" is already used/.test(message))
    return { field: 'id', tab: 'basic', problem: message.replace(/^id "[^"]*" /, '') };
  // The chain prefix, then an optional node, then "<path>: <problem>".
  const match = /^(?:invalid rule chain|rule chain "[^"]*"): (?:node "[^"]*": )?([\w.]+): (.+)$/s.exec(
    message,
  );
  const placed = match ? place(match[1] ?? '', match[2] ?? '') : undefined;
  return placed ?? { problem: message };
}
