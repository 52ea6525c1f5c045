// The state of one evaluation: the environment, `let` slots, the predicate loops in progress and
// the budgets that keep an expression from a rule chain from exhausting memory or time.
import { fault } from './errors.ts';
import type { ExprLocation } from './time-value.ts';
import type { ExprMap } from './values.ts';

/** expr-lang's default memory budget (conf.DefaultMemoryBudget), counted in elements. */
export const MEMORY_BUDGET = 1_000_000;
/** Predicate iterations per evaluation; loops over environment data allocate nothing to count. */
export const MAX_ITERATIONS = 10_000_000;
/** The longest string `+` may build. */
export const MAX_STRING_LENGTH = 1 << 24;

/** The element a predicate is looking at: `#`, `#index` and `#acc`. */
export interface Loop {
  item: unknown;
  index: number;
  accumulator: unknown;
}

/** Kept by a compiled expression across evaluations: compiled regular expressions and zones. */
export interface Caches {
  patterns: Map<string, RegExp>;
  locations: Map<string, ExprLocation | undefined>;
}

export interface Frame {
  env: ExprMap;
  variables: unknown[];
  /** Indexed by predicate nesting, which the compiler knows for every `#`. */
  loops: Loop[];
  memory: number;
  iterations: number;
  /** Offset of the operation in progress, reported when it faults. */
  at: number;
  caches: Caches;
}

export type Evaluator = (frame: Frame) => unknown;

/** Counts `elements` against the memory budget, as expr-lang's vm.memGrow. */
export function charge(frame: Frame, elements: number): void {
  frame.memory += elements;
  if (frame.memory > MEMORY_BUDGET) throw fault('memory budget exceeded');
}

export function countIteration(frame: Frame): void {
  frame.iterations += 1;
  if (frame.iterations > MAX_ITERATIONS) throw fault(`too many iterations (more than ${MAX_ITERATIONS})`);
}

/** A bounded cache: forgets everything when full, which is enough for a handful of keys. */
export function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  if (cache.has(key)) return cache.get(key) as T;
  if (cache.size >= 64) cache.clear();
  const value = make();
  cache.set(key, value);
  return value;
}

/** A builtin function that takes plain values (the predicate builtins are compiled instead). */
export interface Builtin {
  /** Fewest and most arguments; checked when the expression compiles. */
  arity: readonly [number, number];
  call: (args: unknown[], frame: Frame) => unknown;
}
