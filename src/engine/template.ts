// `${metadata.x}`, `${msg.x}`, `${vars.x}` placeholders. A template is split once into parts, so
// rendering per message is a walk over the parts and a lookup per placeholder.
import { readData } from './message.ts';
import type { RuleMessage } from './types.ts';

/** Gives the text for one placeholder expression, or undefined to leave the placeholder as written. */
export type Resolver = (expression: string) => string | undefined;

type Part = string | { expression: string; source: string };

const PLACEHOLDER = /\$\{([^{}]+)\}/g;

export class Template {
  private constructor(private readonly parts: Part[]) {}

  static compile(text: string): Template {
    const parts: Part[] = [];
    let last = 0;
    for (const match of text.matchAll(PLACEHOLDER)) {
      if (match.index > last) parts.push(text.slice(last, match.index));
      parts.push({ expression: (match[1] ?? '').trim(), source: match[0] });
      last = match.index + match[0].length;
    }
    if (last < text.length) parts.push(text.slice(last));
    return new Template(parts);
  }

  /** The placeholder expressions, in order. */
  expressions(): string[] {
    return this.parts.flatMap((part) => (typeof part === 'string' ? [] : [part.expression]));
  }

  /** True when the text has no placeholders, so callers can skip rendering. */
  get isStatic(): boolean {
    return this.parts.every((part) => typeof part === 'string');
  }

  render(resolve: Resolver): string {
    let text = '';
    for (const part of this.parts) {
      if (typeof part === 'string') text += part;
      else text += resolve(part.expression) ?? part.source;
    }
    return text;
  }
}

export function renderTemplate(text: string, resolve: Resolver): string {
  return Template.compile(text).render(resolve);
}

/** Text of a looked-up value: strings as they are, other values as JSON. */
export function stringify(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Follows a dotted path (`a.b.0.c`) into a value. */
export function lookupPath(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Resolves `root.path` expressions against named roots. A bare name (no dot) is looked up under
 * `bareRoot`, as RuleGo treats `${key}` as `${metadata.key}`. Roots may be functions, called once.
 */
export function pathResolver(roots: Record<string, unknown>, bareRoot?: string): Resolver {
  const cache = new Map<string, unknown>();
  const rootValue = (name: string): unknown => {
    if (!Object.hasOwn(roots, name)) return undefined;
    if (cache.has(name)) return cache.get(name);
    const raw = roots[name];
    const value: unknown = typeof raw === 'function' ? (raw as () => unknown)() : raw;
    cache.set(name, value);
    return value;
  };
  return (expression) => {
    const path = expression.split('.');
    const head = path[0] ?? '';
    if (path.length === 1) {
      return bareRoot === undefined ? undefined : stringify(lookupPath(rootValue(bareRoot), path));
    }
    return stringify(lookupPath(rootValue(head), path.slice(1)));
  };
}

/**
 * The placeholders a message offers, as RuleGo's str templates read its env: metadata (its keys also
 * by bare name), msg (the parsed data), data, id, ts, msgType, dataType, vars, and any further
 * `roots` (global, the outputs of other nodes by id).
 */
export function messageResolver(
  message: RuleMessage,
  vars: Record<string, string> = {},
  roots: Record<string, unknown> = {},
): Resolver {
  const byPath = pathResolver(
    { ...roots, metadata: message.metadata, msg: () => readData(message), vars },
    'metadata',
  );
  return (expression) => {
    // As RuleGo's env: a metadata key shadows a message field of the same bare name.
    if (Object.hasOwn(message.metadata, expression)) return message.metadata[expression];
    switch (expression) {
      case 'msgType':
        return message.type;
      case 'dataType':
        return message.dataType;
      case 'msg':
      case 'data':
        return message.data;
      case 'id':
        return message.id;
      case 'ts':
        return String(message.ts);
      default:
        return byPath(expression);
    }
  };
}
