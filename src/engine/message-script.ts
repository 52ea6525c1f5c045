// RuleGo-style script functions `(msg, metadata, msgType, dataType)` over a sandbox. A message
// crosses into the VM as one string: a JSON header line, a newline, then the raw data. The header
// never holds a raw newline, and the data is parsed only inside the VM, so the host does no JSON work.
import { globalsOf } from './expr-env.ts';
import type { CallOwner } from './sandbox/pending-call.ts';
import type { ScriptPool } from './sandbox/script-pool.ts';
import type { NodeFactoryContext, NodeInstance, NodeOutput, NodeServices, RuleMessage } from './types.ts';

/**
 * How the VM turns the user function's return value into the string handed back to the host. A
 * result of the wrong shape throws a bare `{message}` (no error name), so the error text is
 * RuleGo's exactly: "return the value is not a map".
 */
export const finishers = {
  /** Truthiness as "1" / "0". */
  boolean: '(result) => (result ? "1" : "0")',
  /** "1" only for the boolean true, as RuleGo's jsFilter; anything else is "0". */
  strictBoolean: '(result) => (result === true ? "1" : "0")',
  /** A relation list: an array of names, or one name. */
  relations:
    '(result) => JSON.stringify(Array.isArray(result) ? result.map(String) : result == null ? [] : [String(result)])',
  /** A relation list that must be an array, as RuleGo's jsSwitch; anything else throws. */
  relationArray: `(result) => {
    if (!Array.isArray(result)) throw { message: 'return the value is not an array' };
    return JSON.stringify(result.map((item) => (typeof item === 'string' ? item : JSON.stringify(item) ?? String(item))));
  }`,
  /** Any value as JSON (undefined becomes null). */
  json: '(result) => { const text = JSON.stringify(result); return text === undefined ? "null" : text; }',
  /** Any value as display text. */
  text: '(result) => (typeof result === "string" ? result : JSON.stringify(result) ?? String(result))',
  /** A string, as RuleGo's log node requires; anything else throws. */
  string: `(result) => {
    if (typeof result !== 'string') throw { message: 'return the value is not a string' };
    return result;
  }`,
  /**
   * `{msg, metadata, msgType, dataType}` as `[metadata, msgType, dataType, hasMsg]` + newline + data,
   * as RuleGo's jsTransform reads it: only the keys present change the message; anything but an
   * object is an error; msg is text as it is, other values as JSON, null as "".
   */
  message: `(result) => {
    if (result === null || typeof result !== 'object' || Array.isArray(result)) throw { message: 'return the value is not a map' };
    const has = (key) => Object.prototype.hasOwnProperty.call(result, key);
    const text = (value) => (value == null ? '' : typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
    const hasMsg = has('msg');
    const head = JSON.stringify([
      has('metadata') ? (result.metadata ?? {}) : null,
      has('msgType') ? text(result.msgType) : null,
      has('dataType') ? text(result.dataType) : null,
      hasMsg,
    ]);
    return head + '\\n' + (hasMsg ? text(result.msg) : '');
  }`,
} as const;

/** What a script sees besides the message: read-only `vars` and `global`, fixed when the node loads. */
export interface ScriptScope {
  vars: Record<string, string>;
  global: Record<string, unknown>;
}

/** The scope of a node's scripts: its chain's vars and the global properties as they are at load. */
function scriptScope(vars: Record<string, string>, services: NodeServices): ScriptScope {
  return { vars, global: globalsOf(services)() };
}

/** A script of the node `factory` builds, in the scope of its chain (see scriptScope). */
export function nodeScript(
  body: string,
  finisher: string,
  { vars, services }: Pick<NodeFactoryContext, 'vars' | 'services'>,
): Promise<MessageScript> {
  return MessageScript.create(body, finisher, services, scriptScope(vars, services));
}

/** A node that runs one script per message; `outputs` turns the script's result into the node's outputs. */
export async function scriptNode(
  body: string,
  finisher: string,
  factory: Pick<NodeFactoryContext, 'vars' | 'services'>,
  outputs: (result: string, message: RuleMessage) => NodeOutput[],
): Promise<NodeInstance> {
  const script = await nodeScript(body, finisher, factory);
  return {
    process: async (message, context) => outputs(await script.run(message, context), message),
    destroy: () => script.dispose(),
  };
}

const PARAMETERS = 'msg,metadata,msgType,dataType,vars,global';

// QuickJS's Function constructor pastes the body into source text, so a body can close the function
// early and hand back another one, whose closure would keep state from call to call. The source text
// of the function made from a whole body is exactly the pasted text; anything else is refused.
// Scripts run in strict mode; vars and global come in as deep-frozen arguments, as RuleGo's globals.
function functionSource(body: string, finisher: string, scope: ScriptScope): string {
  const text = JSON.stringify(`'use strict';\n${body}`);
  const scopeText = JSON.stringify(JSON.stringify([scope.vars, scope.global]));
  return `(() => {
  const user = new Function(${PARAMETERS.split(',')
    .map((name) => `'${name}'`)
    .join(', ')}, ${text});
  if (String(user) !== 'function anonymous(${PARAMETERS}\\n) {\\n' + ${text} + '\\n}') {
    throw new SyntaxError('the script must be the body of one function');
  }
  // arguments.callee reaches the function: frozen, it cannot carry anything to the next call.
  Object.freeze(user.prototype);
  Object.freeze(user);
  const freeze = (value) => {
    if (typeof value === 'object' && value !== null) {
      Object.freeze(value);
      for (const item of Object.values(value)) freeze(item);
    }
    return value;
  };
  const [vars, global] = freeze(JSON.parse(${scopeText}));
  const finish = ${finisher};
  return (input) => {
    const split = input.indexOf('\\n');
    const head = JSON.parse(input.slice(0, split));
    const raw = input.slice(split + 1);
    let msg = raw;
    if (head[2] === 'JSON') {
      try { msg = JSON.parse(raw); } catch { msg = raw; }
    }
    return finish(user(msg, head[0], head[1], head[2], vars, global));
  };
})()`;
}

export function encodeMessage(message: RuleMessage): string {
  return `${JSON.stringify([message.metadata, message.type, message.dataType])}\n${message.data}`;
}

/** One user function body, compiled once per node (on every script worker); `run` calls it for a message. */
export class MessageScript {
  private constructor(
    private readonly pool: ScriptPool,
    private readonly scriptId: number,
  ) {}

  /** Compiles `body` as the body of `function (msg, metadata, msgType, dataType)` (+ vars, global). Throws ScriptError. */
  static async create(
    body: string,
    finisher: string,
    services: NodeServices,
    scope: ScriptScope = { vars: {}, global: {} },
  ): Promise<MessageScript> {
    const pool = services.scriptPool;
    if (!pool) throw new Error('scripts need services.scriptPool, which the rule engine provides');
    const scriptId = await pool.compile(functionSource(body, finisher, scope), {
      timeoutMs: services.scriptTimeoutMs,
      memoryBytes: services.scriptMemoryBytes,
    });
    return new MessageScript(pool, scriptId);
  }

  /** An expression over msg, metadata, msgType and dataType, compiled as `return (expression);`. */
  static expression(
    expression: string,
    finisher: string,
    services: NodeServices,
    scope?: ScriptScope,
  ): Promise<MessageScript> {
    return MessageScript.create(`return (${expression}\n);`, finisher, services, scope);
  }

  /** The finisher's string for `message`; rejects with ScriptError, or the reason when `owner.signal` aborts. */
  run(message: RuleMessage, owner?: CallOwner): Promise<string> {
    return this.pool.call(this.scriptId, encodeMessage(message), owner);
  }

  dispose(): void {
    this.pool.release(this.scriptId);
  }
}
