// The expression environment of the expr-lang nodes: RuleGo's (exprEnv) plus, for each node id the
// node's expressions name (`${n1.msg.x}`), that node's last output in the run, as RuleGo's
// GetNodeDependencies does. The names are found once when the chain loads.
import { exprEnv } from '../expr-env.ts';
import type { ExprScope } from '../expr-env.ts';
import type { NodeContext, RuleMessage } from '../types.ts';

const BUILT_IN = new Set(['id', 'ts', 'data', 'msgType', 'dataType', 'msg', 'metadata', 'vars', 'global']);
const REFERENCE =
  /(?<![\w.$])([A-Za-z_][\w-]*)\s*(?:\?\.|\.)\s*(?:msg|metadata|data|id|ts|msgType|dataType)\b/g;

/** Node ids that the sources may refer to: `<name>.msg`, `<name>.metadata`... other than the built-ins. */
export function referencedNodes(sources: readonly string[]): string[] {
  const names = new Set<string>();
  for (const source of sources) {
    for (const match of source.matchAll(REFERENCE)) {
      const name = match[1];
      if (name !== undefined && !BUILT_IN.has(name)) names.add(name);
    }
  }
  return [...names];
}

export function nodeEnv(
  message: RuleMessage,
  scope: ExprScope,
  context: NodeContext,
  references: readonly string[],
): Record<string, unknown> {
  const env = exprEnv(message, scope);
  for (const nodeId of references) {
    const output = context.nodeOutput?.(nodeId);
    if (output) env[nodeId] = exprEnv(output, scope);
  }
  return env;
}
