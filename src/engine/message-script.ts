// RuleGo-style script functions `(msg, metadata, msgType, dataType)` over a sandbox. A message
// crosses into the VM as one string: a JSON header line, a newline, then the raw data. The header
// never holds a raw newline, and the data is parsed only inside the VM, so the host does no JSON work.
import type { CallOwner } from './pending-call.ts';
import type { ScriptPool } from './script-pool.ts';
import type { NodeServices, RuleMessage } from './types.ts';

/** How the VM turns the user function's return value into the string handed back to the host. */
export const finishers = {
  /** Truthiness as "1" / "0". */
  boolean: '(result) => (result ? "1" : "0")',
  /** A relation list: an array of names, or one name. */
  relations:
    '(result) => JSON.stringify(Array.isArray(result) ? result.map(String) : result == null ? [] : [String(result)])',
  /** Any value as JSON (undefined becomes null). */
  json: '(result) => { const text = JSON.stringify(result); return text === undefined ? "null" : text; }',
  /** Any value as display text. */
  text: '(result) => (typeof result === "string" ? result : JSON.stringify(result) ?? String(result))',
  /** `{msg, metadata, msgType, dataType}` as `[metadata, msgType, dataType, isText]` + newline + data. */
  message: `(result) => {
    if (result === null || typeof result !== 'object') throw new TypeError('Transform must return {msg, metadata, msgType}');
    const data = result.msg;
    const isText = typeof data === 'string';
    const head = JSON.stringify([result.metadata ?? null, result.msgType ?? null, result.dataType ?? null, isText]);
    return head + '\\n' + (isText ? data : (JSON.stringify(data) ?? 'null'));
  }`,
} as const;

// QuickJS's Function constructor pastes the body into source text, so a body can close the function
// early and hand back another one, whose closure would keep state from call to call. The source text
// of the function made from a whole body is exactly the pasted text; anything else is refused.
function functionSource(body: string, finisher: string): string {
  const text = JSON.stringify(body);
  return `(() => {
  const user = new Function('msg', 'metadata', 'msgType', 'dataType', ${text});
  if (String(user) !== 'function anonymous(msg,metadata,msgType,dataType\\n) {\\n' + ${text} + '\\n}') {
    throw new SyntaxError('the script must be the body of one function');
  }
  // arguments.callee reaches the function: frozen, it cannot carry anything to the next call.
  Object.freeze(user.prototype);
  Object.freeze(user);
  const finish = ${finisher};
  return (input) => {
    const split = input.indexOf('\\n');
    const head = JSON.parse(input.slice(0, split));
    const raw = input.slice(split + 1);
    let msg = raw;
    if (head[2] === 'JSON') {
      try { msg = JSON.parse(raw); } catch { msg = raw; }
    }
    return finish(user(msg, head[0], head[1], head[2]));
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

  /** Compiles `body` as the body of `function (msg, metadata, msgType, dataType)`. Throws ScriptError. */
  static async create(body: string, finisher: string, services: NodeServices): Promise<MessageScript> {
    const pool = services.scriptPool;
    if (!pool) throw new Error('scripts need services.scriptPool, which the rule engine provides');
    const scriptId = await pool.compile(functionSource(body, finisher), {
      timeoutMs: services.scriptTimeoutMs,
      memoryBytes: services.scriptMemoryBytes,
    });
    return new MessageScript(pool, scriptId);
  }

  /** An expression over msg, metadata, msgType and dataType, compiled as `return (expression);`. */
  static expression(expression: string, finisher: string, services: NodeServices): Promise<MessageScript> {
    return MessageScript.create(`return (${expression}\n);`, finisher, services);
  }

  /** The finisher's string for `message`; rejects with ScriptError, or the reason when `owner.signal` aborts. */
  run(message: RuleMessage, owner?: CallOwner): Promise<string> {
    return this.pool.call(this.scriptId, encodeMessage(message), owner);
  }

  dispose(): void {
    this.pool.release(this.scriptId);
  }
}
