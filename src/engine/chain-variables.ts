// RuleGo's processVariables (engine/node.go): when a chain loads, `${vars.x}`, `${global.x}` and
// `${ruleChain.x}` in every string of a node's configuration, at any depth, are replaced by their
// values. A placeholder with no value (or any other, like `${msg.x}`) stays as written, for the
// node to render per message.
import { lookupPath } from './template.ts';

const PLACEHOLDER = /\$\{ *([^}]+?) *\}/g;
const ROOTS = new Set(['vars', 'global', 'ruleChain']);

export interface ChainVariables {
  vars: Record<string, string>;
  global: Record<string, unknown>;
  ruleChain: Record<string, unknown>;
}

/** A copy of `value` with the load-time placeholders replaced; non-string leaves are kept as they are. */
export function substituteVariables(value: unknown, variables: ChainVariables): unknown {
  if (typeof value === 'string') return substituteText(value, variables);
  if (Array.isArray(value)) return value.map((item) => substituteVariables(item, variables));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = substituteVariables(item, variables);
    return out;
  }
  return value;
}

function substituteText(text: string, variables: ChainVariables): string {
  if (!text.includes('${')) return text;
  return text.replace(PLACEHOLDER, (whole, key: string) => {
    const path = key.trim().split('.');
    const root = path[0] ?? '';
    if (!ROOTS.has(root) || path.length < 2) return whole;
    const found = lookupPath(variables[root as keyof ChainVariables], path.slice(1));
    if (found === undefined || found === null) return whole;
    if (typeof found === 'string') return found;
    return typeof found === 'object' ? JSON.stringify(found) : String(found as number | boolean);
  });
}
