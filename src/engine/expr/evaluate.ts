// Turns the syntax tree into a tree of closures, once per expression: evaluating is then calls
// and comparisons, with no parsing, lookups by node type or `eval`. Each operation that can fail
// first records its source offset in `frame.at`, so the error can point at it.
import { fetchIndex, slice } from './access.ts';
import type { BinaryNode, BuiltinNode, MapNode, MemberNode, Node } from './ast.ts';
import { arityProblem, BUILTINS } from './builtins.ts';
import { ExprSyntaxError, fault, Fault } from './errors.ts';
import { remember, type Evaluator, type Frame, type Loop } from './frame.ts';
import { PREDICATE_BUILTINS } from './grammar.ts';
import { BINARY_OPERATIONS, negate, plus } from './operators.ts';
import { compilePredicateCall } from './predicates.ts';
import { compilePattern, matches } from './regex.ts';
import { callMethod } from './time-methods.ts';
import { equal, isMap, mapKey, ownEntry, setEntry, typeName, type ExprMap } from './values.ts';

/** What a `?.` that met nil returns, so the rest of its chain is skipped; the chain turns it to nil. */
const SKIP = Symbol('skipped optional chain');

export interface Program {
  evaluate: Evaluator;
  /** How many `let` slots a frame needs. */
  variableCount: number;
}

export function compileTree(tree: Node, source: string): Program {
  const compiler = new Compiler(source);
  const evaluate = compiler.compile(tree, 0);
  return { evaluate, variableCount: compiler.variableCount };
}

function expectBoolean(value: unknown, frame: Frame, at: number, context: string): boolean {
  if (typeof value === 'boolean') return value;
  frame.at = at;
  throw fault(`${context} expects bool, got ${typeName(value)}`);
}

class Compiler {
  variableCount = 0;
  private readonly variables: { name: string; slot: number }[] = [];

  constructor(private readonly source: string) {}

  /** `level` is how many predicates enclose the node: `#` reads `frame.loops[level - 1]`. */
  compile(node: Node, level: number): Evaluator {
    switch (node.type) {
      case 'nil':
        return () => null;
      case 'bool':
      case 'integer':
      case 'float':
      case 'string': {
        const value = node.value;
        return () => value;
      }
      case 'identifier':
        return this.identifier(node.name);
      case 'pointer': {
        const index = level - 1;
        if (node.name === 'index') return (frame) => (frame.loops[index] as Loop).index;
        if (node.name === 'acc') return (frame) => (frame.loops[index] as Loop).accumulator;
        return (frame) => (frame.loops[index] as Loop).item;
      }
      case 'unary':
        return this.unary(node.operator, this.compile(node.operand, level), node.start);
      case 'binary':
        return this.binary(node, level);
      case 'member':
        return this.member(node, level);
      case 'slice': {
        const object = this.compile(node.object, level);
        const from = node.from ? this.compile(node.from, level) : undefined;
        const to = node.to ? this.compile(node.to, level) : undefined;
        const at = node.start;
        return (frame) => {
          const value = object(frame);
          if (value === SKIP) return SKIP;
          const start = from?.(frame);
          const end = to?.(frame);
          frame.at = at;
          return slice(value, start, end);
        };
      }
      case 'chain': {
        const inner = this.compile(node.node, level);
        return (frame) => {
          const value = inner(frame);
          return value === SKIP ? null : value;
        };
      }
      case 'method-call': {
        const object = this.compile(node.object, level);
        const args = node.arguments.map((argument) => this.compile(argument, level));
        const { name, optional, start } = node;
        return (frame) => {
          const value = object(frame);
          if (value === SKIP || (optional && (value === null || value === undefined))) return SKIP;
          const values = args.map((argument) => argument(frame));
          frame.at = start;
          return callMethod(value, name, values);
        };
      }
      case 'builtin':
        return this.builtin(node, level);
      case 'predicate':
        throw new ExprSyntaxError('a predicate is only allowed as an argument', this.source, node.start);
      case 'conditional': {
        const condition = this.compile(node.condition, level);
        const then = this.compile(node.then, level);
        const otherwise = this.compile(node.otherwise, level);
        const at = node.start;
        return (frame) =>
          expectBoolean(condition(frame), frame, at, 'condition') ? then(frame) : otherwise(frame);
      }
      case 'array': {
        const elements = node.elements.map((element) => this.compile(element, level));
        return (frame) => elements.map((element) => element(frame));
      }
      case 'map':
        return this.map(node, level);
      case 'let': {
        const value = this.compile(node.value, level);
        const slot = this.variableCount;
        this.variableCount += 1;
        this.variables.push({ name: node.name, slot });
        const body = this.compile(node.body, level);
        this.variables.pop();
        return (frame) => {
          frame.variables[slot] = value(frame);
          return body(frame);
        };
      }
      case 'sequence': {
        const steps = node.nodes.map((step) => this.compile(step, level));
        return (frame) => {
          let result: unknown = null;
          for (const step of steps) result = step(frame);
          return result;
        };
      }
    }
  }

  /** A `let` variable, `$env`, or an entry of the environment: nil when absent. */
  private identifier(name: string): Evaluator {
    const variable = this.variables.findLast((candidate) => candidate.name === name);
    if (variable !== undefined) {
      const slot = variable.slot;
      return (frame) => frame.variables[slot];
    }
    if (name === '$env') return (frame) => frame.env;
    return (frame) => ownEntry(frame.env, name);
  }

  private unary(operator: string, operand: Evaluator, at: number): Evaluator {
    if (operator === 'not' || operator === '!') {
      return (frame) => !expectBoolean(operand(frame), frame, at, `operator ${operator}`);
    }
    const operation = operator === '-' ? negate : plus;
    return (frame) => {
      const value = operand(frame);
      frame.at = at;
      return operation(value);
    };
  }

  private binary(node: BinaryNode, level: number): Evaluator {
    const left = this.compile(node.left, level);
    const { operator, start: at } = node;
    if (operator === 'matches' && node.right.type === 'string') return this.constantMatch(node, left);
    const right = this.compile(node.right, level);
    switch (operator) {
      case '==':
        return (frame) => equal(left(frame), right(frame));
      case '!=':
        return (frame) => !equal(left(frame), right(frame));
      case 'and':
      case '&&':
        return (frame) =>
          expectBoolean(left(frame), frame, at, `operator ${operator}`) &&
          expectBoolean(right(frame), frame, at, `operator ${operator}`);
      case 'or':
      case '||':
        return (frame) =>
          expectBoolean(left(frame), frame, at, `operator ${operator}`) ||
          expectBoolean(right(frame), frame, at, `operator ${operator}`);
      case '??':
        return (frame) => {
          const value = left(frame);
          return value === null || value === undefined ? right(frame) : value;
        };
      case 'matches':
        return (frame) => {
          const text = left(frame);
          const pattern = right(frame);
          frame.at = at;
          if (pattern === null || pattern === undefined) return false;
          if (typeof pattern !== 'string')
            throw fault(`invalid operation: string matches ${typeName(pattern)}`);
          return matches(
            text,
            remember(frame.caches.patterns, pattern, () => compilePattern(pattern)),
          );
        };
    }
    const operation = BINARY_OPERATIONS[operator];
    if (operation === undefined) throw new ExprSyntaxError(`unknown operator ${operator}`, this.source, at);
    return (frame) => {
      const leftValue = left(frame);
      const rightValue = right(frame);
      frame.at = at;
      return operation(leftValue, rightValue, frame);
    };
  }

  /** A literal pattern compiles once, and an invalid one fails at compile time. */
  private constantMatch(node: BinaryNode, left: Evaluator): Evaluator {
    let pattern: RegExp;
    try {
      pattern = compilePattern((node.right as { value: string }).value);
    } catch (error) {
      if (error instanceof Fault) throw new ExprSyntaxError(error.message, this.source, node.right.start);
      throw error;
    }
    const at = node.start;
    return (frame) => {
      const text = left(frame);
      frame.at = at;
      return matches(text, pattern);
    };
  }

  private member(node: MemberNode, level: number): Evaluator {
    const object = this.compile(node.object, level);
    const { optional, start: at } = node;
    if (node.property.type === 'string') {
      const name = node.property.value;
      return (frame) => {
        const value = object(frame);
        if (isMap(value)) return ownEntry(value, name);
        if (value === SKIP || (optional && (value === null || value === undefined))) return SKIP;
        frame.at = at;
        return fetchIndex(value, name);
      };
    }
    const property = this.compile(node.property, level);
    return (frame) => {
      const value = object(frame);
      if (value === SKIP || (optional && (value === null || value === undefined))) return SKIP;
      const key = property(frame);
      frame.at = at;
      return fetchIndex(value, key);
    };
  }

  private builtin(node: BuiltinNode, level: number): Evaluator {
    const { name, start: at } = node;
    if (PREDICATE_BUILTINS.has(name)) {
      const [collection, predicate, extra] = node.arguments;
      return compilePredicateCall({
        name,
        level,
        collection: this.compile(collection as Node, level),
        predicate: predicate?.type === 'predicate' ? this.compile(predicate.body, level + 1) : undefined,
        extra: extra ? this.compile(extra, level) : undefined,
        at,
      });
    }
    const builtin = BUILTINS.get(name);
    if (builtin === undefined) throw new ExprSyntaxError(`unknown function ${name}`, this.source, at);
    const problem = arityProblem(name, builtin, node.arguments.length);
    if (problem !== undefined) throw new ExprSyntaxError(problem, this.source, at);
    const args = node.arguments.map((argument) => this.compile(argument, level));
    const call = builtin.call;
    return (frame) => {
      const values = args.map((argument) => argument(frame));
      frame.at = at;
      return call(values, frame);
    };
  }

  private map(node: MapNode, level: number): Evaluator {
    const entries = node.entries.map((entry) => ({
      key: entry.key.type === 'string' ? entry.key.value : this.compile(entry.key, level),
      value: this.compile(entry.value, level),
    }));
    const at = node.start;
    return (frame) => {
      const map: ExprMap = {};
      for (const entry of entries) {
        let key: string;
        if (typeof entry.key === 'string') {
          key = entry.key;
        } else {
          const value = entry.key(frame);
          frame.at = at;
          key = mapKey(value);
        }
        setEntry(map, key, entry.value(frame));
      }
      return map;
    };
  }
}
