// The expression language of RuleGo (expr-lang, github.com/expr-lang/expr): compile once when a
// chain loads, evaluate per message. Unknown top-level names evaluate to nil, as RuleGo compiles
// with AllowUndefinedVariables; member access on nil or on a non-map is an error unless `?.`.
import { ExprEvalError, Fault } from './errors.ts';
import { compileTree } from './evaluate.ts';
import type { Caches, Frame } from './frame.ts';
import { parse } from './parser.ts';

export { ExprError, ExprEvalError, ExprSyntaxError, type SourcePosition } from './errors.ts';
export { ExprDuration, ExprLocation, ExprTime } from './time-value.ts';

export interface CompiledExpression {
  readonly source: string;
  /**
   * Evaluates against an environment of JSON-shaped data (`msg`, `metadata`, `vars`...). Returns
   * null for nil. Throws ExprEvalError, with the position of the failing operation.
   */
  evaluate(env: Record<string, unknown>): unknown;
}

/** Parses and compiles `source`; throws ExprSyntaxError with its position when it is invalid. */
export function compileExpression(source: string): CompiledExpression {
  const program = compileTree(parse(source), source);
  const caches: Caches = { patterns: new Map(), locations: new Map() };
  const { evaluate, variableCount } = program;
  return {
    source,
    evaluate(env) {
      const frame: Frame = {
        env,
        variables: variableCount === 0 ? [] : new Array<unknown>(variableCount),
        loops: [],
        memory: 0,
        iterations: 0,
        at: 0,
        caches,
      };
      try {
        const result = evaluate(frame);
        return result === undefined ? null : result;
      } catch (error) {
        throw evaluationError(error, source, frame.at);
      }
    },
  };
}

function evaluationError(error: unknown, source: string, at: number): ExprEvalError {
  if (error instanceof ExprEvalError) return error;
  if (error instanceof Fault) return new ExprEvalError(error.message, source, at);
  // A JS error here is a limit of the runtime (a stack overflow on deeply nested data, say).
  const reason =
    error instanceof RangeError ? 'recursion depth exceeded' : String((error as Error)?.message ?? error);
  return new ExprEvalError(reason, source, at, { cause: error });
}
