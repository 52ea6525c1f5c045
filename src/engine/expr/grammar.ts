// expr-lang's operator table (parser/operator/operator.go) and the argument shapes of the
// builtins that take a predicate (parser/parser.go). Higher precedence binds tighter.

export interface BinaryOperator {
  precedence: number;
  rightAssociative: boolean;
}

const left = (precedence: number): BinaryOperator => ({ precedence, rightAssociative: false });

export const BINARY_OPERATORS: ReadonlyMap<string, BinaryOperator> = new Map([
  ['|', left(0)],
  ['or', left(10)],
  ['||', left(10)],
  ['and', left(15)],
  ['&&', left(15)],
  ['==', left(20)],
  ['!=', left(20)],
  ['<', left(20)],
  ['>', left(20)],
  ['>=', left(20)],
  ['<=', left(20)],
  ['in', left(20)],
  ['matches', left(20)],
  ['contains', left(20)],
  ['startsWith', left(20)],
  ['endsWith', left(20)],
  ['..', left(25)],
  ['+', left(30)],
  ['-', left(30)],
  ['*', left(60)],
  ['/', left(60)],
  ['%', left(60)],
  ['**', { precedence: 100, rightAssociative: true }],
  ['^', { precedence: 100, rightAssociative: true }],
  ['??', left(500)],
]);

export const UNARY_PRECEDENCE: ReadonlyMap<string, number> = new Map([
  ['not', 50],
  ['!', 50],
  ['-', 90],
  ['+', 90],
]);

/** Operators that `not` may prefix: `a not in b` is `not (a in b)`. */
export const NEGATABLE = new Set(['in', 'matches', 'contains', 'startsWith', 'endsWith']);

/** `1 < 2 < 3` chains into `1 < 2 && 2 < 3`. */
export const COMPARISONS = new Set(['<', '>', '<=', '>=']);

export type PredicateArgument = 'expression' | 'predicate' | 'optional-expression' | 'optional-predicate';

/** The builtins that take a predicate, by the arguments they take. */
const PREDICATE_SHAPES: Array<[readonly PredicateArgument[], string[]]> = [
  [
    ['expression', 'predicate'],
    [
      'all',
      'none',
      'any',
      'one',
      'filter',
      'map',
      'find',
      'findIndex',
      'findLast',
      'findLastIndex',
      'groupBy',
    ],
  ],
  [
    ['expression', 'optional-predicate'],
    ['count', 'sum'],
  ],
  [
    ['expression', 'predicate', 'optional-expression'],
    ['sortBy', 'reduce'],
  ],
];

export const PREDICATE_BUILTINS: ReadonlyMap<string, readonly PredicateArgument[]> = new Map(
  PREDICATE_SHAPES.flatMap(([shape, names]) => names.map((name) => [name, shape] as const)),
);

/** Pointer names a predicate may use: `#`, `#index`, `#acc`. */
export const POINTERS = new Set(['', 'index', 'acc']);
