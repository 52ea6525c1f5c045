// The environment RuleGo gives expr-lang expressions (rule_context.go getEnv): id, ts, data (the raw
// string), msgType (also as `type`), dataType, msg (the data parsed when it is JSON, else the string), metadata, vars
// (the chain's configuration.vars) and global (the server's global properties).
import { readData } from './message.ts';
import type { NodeServices, RuleMessage } from './types.ts';

/** What does not change from message to message: the chain's vars and the global properties. */
export interface ExprScope {
  vars: Record<string, string>;
  global: () => Record<string, unknown>;
}

export function exprEnv(message: RuleMessage, scope: ExprScope): Record<string, unknown> {
  return {
    id: message.id,
    ts: message.ts,
    data: message.data,
    msgType: message.type,
    // RuleGo's node test context also names the message type `type`; its transform tests read it.
    type: message.type,
    dataType: message.dataType,
    msg: readData(message),
    metadata: message.metadata,
    vars: scope.vars,
    global: scope.global(),
  };
}

/**
 * The global properties the server offers nodes: `services.globals`, a function or an object
 * (the AI nodes take the same function). Absent: an empty object.
 */
export function globalsOf(services: NodeServices): () => Record<string, unknown> {
  const globals = services['globals'];
  if (typeof globals === 'function') return globals as () => Record<string, unknown>;
  if (typeof globals === 'object' && globals !== null) return () => globals as Record<string, unknown>;
  return () => ({});
}

export function exprScope(vars: Record<string, string>, services: NodeServices): ExprScope {
  return { vars, global: globalsOf(services) };
}
