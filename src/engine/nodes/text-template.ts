// text/template: RuleGo's Go text/template node, for the part of the language chains use: `{{ .a.b }}`
// field paths, `{{ . }}`, `| escape`, `{{ range }}`, `{{ if }} {{ else }}`, `{{ end }}` and the `{{-`
// `-}}` trim markers. The template is parsed once at load; anything else is refused there.
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';
import { nonEmptyText } from './config-fields.ts';

type Step =
  | { kind: 'text'; text: string }
  | { kind: 'value'; path: string[]; escape: boolean }
  | { kind: 'range'; path: string[]; body: Step[] }
  | { kind: 'if'; path: string[]; then: Step[]; otherwise: Step[] };

const configSchema = z.object({
  template: nonEmptyText(
    'Template',
    'Go text/template; variables .id, .ts, .data, .msg, .metadata, .msgType, .type, .dataType, and .<nodeId>.msg for an earlier node.',
  ),
});

export const textTemplateNode = defineNode(configSchema, {
  type: 'text/template',
  label: 'Text template',
  description: 'Replaces the data with a Go text/template rendered over the message.',
  category: 'transform',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const { nodeId } = factory;
    if (config.template.startsWith('file:')) {
      throw new AppError(
        'invalid',
        `node "${nodeId}": template files are not supported; put the template inline`,
      );
    }
    let steps: Step[];
    try {
      steps = parseTemplate(config.template);
    } catch (error) {
      throw new AppError('invalid', `node "${nodeId}": ${(error as Error).message}`);
    }
    const envOf = nodeEnvOf(factory);
    return {
      process(message, context) {
        // `{{ .node1.msg.x }}` reads the output of node1, as RuleGo's template env has it.
        const env = { ...envOf(message, context), type: message.type };
        const data = render(steps, env, env);
        return Promise.resolve([{ relation: 'Success', message: { ...message, data } }]);
      },
    };
  },
});

interface Token {
  text?: string;
  action?: string;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const open = source.indexOf('{{', at);
    if (open < 0) {
      tokens.push({ text: source.slice(at) });
      break;
    }
    const close = source.indexOf('}}', open + 2);
    if (close < 0) throw new Error('unclosed action');
    let text = source.slice(at, open);
    let inner = source.slice(open + 2, close);
    if (inner.startsWith('- ') || inner === '-') {
      text = text.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    let next = close + 2;
    if (inner.endsWith(' -')) {
      inner = inner.slice(0, -1);
      const rest = source.slice(next);
      next += rest.length - rest.replace(/^\s+/, '').length;
    }
    if (text !== '') tokens.push({ text });
    tokens.push({ action: inner.trim() });
    at = next;
  }
  return tokens;
}

function parseTemplate(source: string): Step[] {
  const tokens = tokenize(source);
  let index = 0;
  const block = (enders: string[]): { steps: Step[]; ender: string } => {
    const steps: Step[] = [];
    while (index < tokens.length) {
      const token = tokens[index] as Token;
      index += 1;
      if (token.text !== undefined) {
        steps.push({ kind: 'text', text: token.text });
        continue;
      }
      const action = token.action ?? '';
      if (action.startsWith('/*')) continue;
      const [word = '', ...rest] = action.split(/\s+/);
      if (enders.includes(word)) return { steps, ender: word };
      if (word === 'range' || word === 'if') {
        const path = parsePath(rest.join(' '));
        const body = block(word === 'if' ? ['end', 'else'] : ['end']);
        if (word === 'range') steps.push({ kind: 'range', path, body: body.steps });
        else {
          const otherwise = body.ender === 'else' ? block(['end']).steps : [];
          steps.push({ kind: 'if', path, then: body.steps, otherwise });
        }
        continue;
      }
      const [value = '', ...functions] = action.split('|').map((part) => part.trim());
      for (const name of functions) if (name !== 'escape') throw new Error(`unsupported function "${name}"`);
      steps.push({ kind: 'value', path: parsePath(value), escape: functions.includes('escape') });
    }
    if (enders.length > 0) throw new Error(`missing {{end}}`);
    return { steps, ender: '' };
  };
  return block([]).steps;
}

function parsePath(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '.') return [];
  if (!/^(\.[A-Za-z_][\w]*)+$/.test(trimmed)) throw new Error(`unsupported action "{{${trimmed}}}"`);
  return trimmed.slice(1).split('.');
}

/**
 * A field path as Go's text/template follows it: a missing key gives no value, but a field of
 * nothing (`.node1.msg` before node1 has run) or of a text, number or list fails the node.
 */
function lookup(dot: unknown, path: string[]): unknown {
  let value = dot;
  for (const key of path) {
    if (value === undefined || value === null) throw new Error(`nil pointer evaluating interface {}.${key}`);
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`can't evaluate field ${key} in type ${goType(value)}`);
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function goType(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'number' ? 'float64' : 'interface {}';
}

function render(steps: Step[], dot: unknown, root: Record<string, unknown>): string {
  let out = '';
  for (const step of steps) {
    if (step.kind === 'text') out += step.text;
    else if (step.kind === 'value') {
      const text = goText(lookup(dot, step.path));
      out += step.escape ? JSON.stringify(text).slice(1, -1) : text;
    } else if (step.kind === 'range') {
      const items = lookup(dot, step.path);
      const list = Array.isArray(items)
        ? items
        : typeof items === 'object' && items !== null
          ? Object.keys(items)
              .sort()
              .map((key) => (items as Record<string, unknown>)[key])
          : [];
      for (const item of list) out += render(step.body, item, root);
    } else {
      out += render(truthy(lookup(dot, step.path)) ? step.then : step.otherwise, dot, root);
    }
  }
  return out;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** A value as Go's fmt prints it: <no value> for a missing key, maps as map[k:v], lists as [a b]. */
function goText(value: unknown): string {
  if (value === undefined) return '<no value>';
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goText).join(' ')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .map((key) => `${key}:${goText(record[key])}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(value);
}
