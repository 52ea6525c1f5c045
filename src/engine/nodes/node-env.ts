// The expression environment of a node: RuleGo's (exprEnv) plus, for each node id the node's
// configuration refers to (`${n1.msg.x}`, found when the chain loads), that node's last output in the
// run, as RuleGo's GetEnv does with the chain's node dependencies. A node whose output the run has not
// got yet is absent, so reading through it is an evaluation error.
import { exprEnv, exprScope } from '../expr-env.ts';
import type { ExprScope } from '../expr-env.ts';
import type { NodeContext, NodeFactoryContext, RuleMessage } from '../types.ts';

/** A node's environment for one message (see nodeEnv), with its vars and globals fixed when it loads. */
export type NodeEnvOf = (message: RuleMessage, context: NodeContext) => Record<string, unknown>;

/** `nodeEnv` for the node `factory` builds: the scope is made once, at load. */
export function nodeEnvOf(
  { vars, services, references }: NodeFactoryContext,
  withMetadata = false,
): NodeEnvOf {
  const scope = exprScope(vars, services);
  return (message, context) => nodeEnv(message, scope, context, references, withMetadata);
}

/** `withMetadata`: each metadata key also by its bare name, as RuleGo's GetEvnAndMetadata gives it. */
export function nodeEnv(
  message: RuleMessage,
  scope: ExprScope,
  context: NodeContext,
  references: readonly string[] | undefined,
  withMetadata = false,
): Record<string, unknown> {
  const env = exprEnv(message, scope);
  if (withMetadata) {
    // RuleGo writes the keys after the message fields and before `metadata` itself.
    Object.assign(env, message.metadata);
    env['metadata'] = message.metadata;
  }
  if (references) {
    for (const nodeId of references) {
      const output = context.nodeOutput?.(nodeId);
      if (output) env[nodeId] = exprEnv(output, scope);
    }
  }
  return env;
}

/** The outputs the references name, each as its environment, for the `${a.b}` path templates. */
export function referencedOutputs(
  scope: ExprScope,
  context: NodeContext,
  references: readonly string[] | undefined,
): Record<string, unknown> {
  const roots: Record<string, unknown> = {};
  for (const nodeId of references ?? []) {
    const output = context.nodeOutput?.(nodeId);
    if (output) roots[nodeId] = exprEnv(output, scope);
  }
  return roots;
}
