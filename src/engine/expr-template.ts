// String templates whose `${...}` parts are expr-lang expressions, as RuleGo's el.NewTemplate:
// a text that is one single `${expr}` keeps the value's type; otherwise each part is rendered as
// text (nil as ""). Every part is compiled once, here; rendering only evaluates.
import { AppError } from '../core/errors.ts';
import { ExprEvalError } from './expr/errors.ts';
import { compileExpression, ExprSyntaxError, type CompiledExpression } from './expr/expr.ts';
import { formatValue } from './expr/format.ts';
import { goJson } from './go-json.ts';
import { isMap } from './expr/values.ts';

type Part = string | CompiledExpression;

export interface ExprTemplate {
  /** True when the text has no `${...}`: render gives it back unchanged. */
  readonly isStatic: boolean;
  /** The text with every `${expr}` replaced by its value as text. Throws ExprEvalError. */
  render(env: Record<string, unknown>): string;
  /** The value of a template that is one `${expr}`; otherwise the rendered text. Throws ExprEvalError. */
  evaluate(env: Record<string, unknown>): unknown;
}

/** Compiles `text`; a syntax error is an AppError('invalid') naming `where` (e.g. `node "n1"`). */
export function compileExprTemplate(text: string, where = 'template'): ExprTemplate {
  try {
    return build(text);
  } catch (error) {
    if (error instanceof ExprSyntaxError) {
      throw new AppError('invalid', `${where}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

function build(text: string): ExprTemplate {
  const trimmed = text.trim();
  if (trimmed.startsWith('${') && trimmed.endsWith('}')) {
    const middle = trimmed.slice(2, -1);
    if (!middle.includes('${') && !middle.includes('}')) {
      const expression = compileExpression(middle);
      return {
        isStatic: false,
        render: (env) => exprText(expression.evaluate(env)),
        evaluate: (env) => expression.evaluate(env),
      };
    }
  }
  const parts = splitParts(text);
  const isStatic = parts.every((part) => typeof part === 'string');
  const render = (env: Record<string, unknown>): string => {
    if (isStatic) return text;
    let out = '';
    for (const part of parts) out += typeof part === 'string' ? part : exprText(part.evaluate(env));
    return out;
  };
  return { isStatic, render, evaluate: render };
}

/**
 * The text of a template as RuleGo's ExecuteAsString gives it (restApiCall, delay, ai/agent): an
 * evaluation error, such as reading through a node output the run has not got, renders as "".
 */
export function renderAsString(template: ExprTemplate, env: Record<string, unknown>): string {
  try {
    return template.render(env);
  } catch (error) {
    if (error instanceof ExprEvalError) return '';
    throw error;
  }
}

// As RuleGo's MixedTemplate: each `${` runs to the first `}` after it; a `${` without one is text.
function splitParts(text: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  for (;;) {
    const start = text.indexOf('${', at);
    if (start < 0) break;
    const end = text.indexOf('}', start + 2);
    if (end < 0) break;
    if (start > at) parts.push(text.slice(at, start));
    parts.push(compileExpression(text.slice(start + 2, end)));
    at = end + 1;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

/**
 * An expression as RuleGo's exprFilter and switch take it: `${...}` wrappers outside double-quoted
 * strings are removed, so `${msg.temperature > 50}` and `msg.temperature > 50` are the same.
 */
export function unwrapExpression(source: string): string {
  let out = '';
  let inQuotes = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '"') {
      inQuotes = !inQuotes;
      out += char;
    } else if (char === '\\') {
      out += source.slice(index, index + 2);
      index++;
    } else if (!inQuotes && char === '$' && source[index + 1] === '{') {
      const end = source.indexOf('}', index + 2);
      if (end < 0) {
        out += char;
        continue;
      }
      out += source.slice(index + 2, end);
      index = end;
    } else {
      out += char;
    }
  }
  return out;
}

/** Compiles an expression (after unwrapExpression); a syntax error is AppError('invalid') naming `where`. */
export function compileRuleExpression(source: string, where: string): CompiledExpression {
  try {
    return compileExpression(unwrapExpression(source));
  } catch (error) {
    if (error instanceof ExprSyntaxError) {
      throw new AppError('invalid', `${where}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/** A field-to-expression mapping, compiled at load; the result evaluates every field in one environment. */
export function compileMapping(
  mapping: Record<string, string>,
  where: string,
): (env: Record<string, unknown>) => Record<string, unknown> {
  const fields = Object.entries(mapping).map(
    ([field, source]) => [field, compileRuleExpression(source, `${where} mapping "${field}"`)] as const,
  );
  return (env) => {
    const result: Record<string, unknown> = {};
    for (const [field, compiled] of fields) result[field] = compiled.evaluate(env);
    return result;
  };
}

/** A value as RuleGo's str.ToString writes it: nil as "", strings as they are, maps and lists as Go's JSON (keys sorted). */
export function exprText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) || isMap(value)) return goJson(value);
  return formatValue(value);
}
