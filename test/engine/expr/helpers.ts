// Table-driven helpers for the expression tests: one test per row, named by its source, so a
// failing row names itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node } from '../../../src/engine/expr/ast.ts';
import { compileExpression, ExprEvalError, ExprSyntaxError } from '../../../src/engine/expr/expr.ts';

export type Env = Record<string, unknown>;

export function evaluate(source: string, env: Env = {}): unknown {
  return compileExpression(source).evaluate(env);
}

/** Each row: the source evaluates to the value (deep, strict equality). */
export function valueTable(
  title: string,
  rows: readonly (readonly [string, unknown])[],
  env: Env = {},
): void {
  for (const [source, expected] of rows) {
    test(`${title}: ${source}`, () => {
      assert.deepStrictEqual(evaluate(source, env), expected);
    });
  }
}

/** Each row: compiling the source fails with exactly this message (reason, position, snippet). */
export function syntaxErrorTable(title: string, rows: readonly (readonly [string, string])[]): void {
  for (const [source, message] of rows) {
    test(`${title}: ${source}`, () => {
      assert.throws(
        () => compileExpression(source),
        (error: unknown) => error instanceof ExprSyntaxError && error.message === message,
        `expected: ${message}`,
      );
    });
  }
}

/** Each row: evaluating fails with an ExprEvalError whose reason contains the text. */
export function evalErrorTable(
  title: string,
  rows: readonly (readonly [string, string])[],
  env: Env = {},
): void {
  for (const [source, reason] of rows) {
    test(`${title}: ${source}`, () => {
      const compiled = compileExpression(source);
      assert.throws(
        () => compiled.evaluate(env),
        (error: unknown) => error instanceof ExprEvalError && error.reason.includes(reason),
        `expected a reason containing: ${reason}`,
      );
    });
  }
}

/** The tree with every operator parenthesised, to check precedence and associativity. */
export function show(node: Node): string {
  switch (node.type) {
    case 'nil':
      return 'nil';
    case 'bool':
    case 'integer':
      return String(node.value);
    case 'float':
      return Number.isInteger(node.value) ? `${node.value}.0` : String(node.value);
    case 'string':
      return JSON.stringify(node.value);
    case 'identifier':
      return node.name;
    case 'pointer':
      return `#${node.name}`;
    case 'unary':
      return `(${node.operator} ${show(node.operand)})`;
    case 'binary':
      return `(${show(node.left)} ${node.operator} ${show(node.right)})`;
    case 'member': {
      const access = node.optional ? '?.' : '.';
      if (node.property.type === 'string') return `${show(node.object)}${access}${node.property.value}`;
      return `${show(node.object)}${node.optional ? '?.' : ''}[${show(node.property)}]`;
    }
    case 'slice':
      return `${show(node.object)}[${node.from ? show(node.from) : ''}:${node.to ? show(node.to) : ''}]`;
    case 'chain':
      return `chain(${show(node.node)})`;
    case 'method-call':
      return `${show(node.object)}${node.optional ? '?.' : '.'}${node.name}(${node.arguments.map(show).join(', ')})`;
    case 'builtin':
      return `${node.name}(${node.arguments.map(show).join(', ')})`;
    case 'predicate':
      return `{${show(node.body)}}`;
    case 'conditional':
      return `(${show(node.condition)} ? ${show(node.then)} : ${show(node.otherwise)})`;
    case 'array':
      return `[${node.elements.map(show).join(', ')}]`;
    case 'map':
      return `{${node.entries.map((entry) => `${show(entry.key)}: ${show(entry.value)}`).join(', ')}}`;
    case 'let':
      return `(let ${node.name} = ${show(node.value)}; ${show(node.body)})`;
    case 'sequence':
      return `(${node.nodes.map(show).join('; ')})`;
  }
}
