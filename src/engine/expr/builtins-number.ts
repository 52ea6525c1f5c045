// Number builtins. `max`, `min`, `mean` and `median` take numbers and arrays of numbers, nested
// at will, as expr-lang's do. The bit functions work on 64-bit integers, as Go's `int`.
import { fault } from './errors.ts';
import type { Builtin } from './frame.ts';
import { compare, typeName } from './values.ts';

const MAX_DEPTH = 1000;

function numbersOf(args: unknown[], name: string, into: number[] = [], depth = 0): number[] {
  if (depth > MAX_DEPTH) throw fault('recursion depth exceeded');
  for (const arg of args) {
    if (typeof arg === 'number') into.push(arg);
    else if (Array.isArray(arg)) numbersOf(arg, name, into, depth + 1);
    else throw fault(`invalid argument for ${name} (type ${typeName(arg)})`);
  }
  return into;
}

function extreme(args: unknown[], name: string, sign: number): number | null {
  let best: number | null = null;
  for (const value of numbersOf(args, name)) {
    if (best === null || compare(value, best, name) * sign > 0) best = value;
  }
  return best;
}

/** Go's math.Round: halves go away from zero (JS's Math.round takes them up). */
function roundHalfAway(value: number): number {
  return value < 0 ? -Math.round(-value) : Math.round(value);
}

function unaryMath(name: string, operation: (value: number) => number): Builtin {
  return {
    arity: [1, 1],
    call: (args) => {
      const [value] = args;
      if (typeof value !== 'number') throw fault(`invalid argument for ${name} (type ${typeName(value)})`);
      return operation(value);
    },
  };
}

function bigInteger(value: unknown, name: string): bigint {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt.asIntN(64, BigInt(value));
  throw fault(`cannot use ${typeName(value)} as argument (type int) to call ${name}`);
}

function shiftCount(value: unknown, name: string): bigint {
  const count = bigInteger(value, name);
  if (count < 0n) throw fault(`invalid operation: negative shift count ${count} (type int)`);
  return count > 64n ? 64n : count;
}

function bitFunction(
  name: string,
  operation: (left: bigint, right: bigint) => bigint,
  shift = false,
): Builtin {
  return {
    arity: [2, 2],
    call: (args) => {
      const left = bigInteger(args[0], name);
      const right = shift ? shiftCount(args[1], name) : bigInteger(args[1], name);
      return Number(BigInt.asIntN(64, operation(left, right)));
    },
  };
}

export const NUMBER_BUILTINS: Record<string, Builtin> = {
  max: { arity: [1, Infinity], call: (args) => extreme(args, 'max', 1) },
  min: { arity: [1, Infinity], call: (args) => extreme(args, 'min', -1) },
  mean: {
    arity: [1, Infinity],
    call: (args) => {
      const values = numbersOf(args, 'mean');
      return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
    },
  },
  median: {
    arity: [1, Infinity],
    call: (args) => {
      const values = numbersOf(args, 'median').sort((left, right) => left - right);
      const middle = Math.floor(values.length / 2);
      if (values.length === 0) return 0;
      if (values.length % 2 === 1) return values[middle];
      return ((values[middle - 1] ?? 0) + (values[middle] ?? 0)) / 2;
    },
  },
  abs: unaryMath('abs', Math.abs),
  ceil: unaryMath('ceil', Math.ceil),
  floor: unaryMath('floor', Math.floor),
  round: unaryMath('round', roundHalfAway),
  bitand: bitFunction('bitand', (left, right) => left & right),
  bitor: bitFunction('bitor', (left, right) => left | right),
  bitxor: bitFunction('bitxor', (left, right) => left ^ right),
  bitnand: bitFunction('bitnand', (left, right) => left & ~right),
  bitshl: bitFunction('bitshl', (left, right) => left << right, true),
  bitshr: bitFunction('bitshr', (left, right) => left >> right, true),
  bitushr: bitFunction('bitushr', (left, right) => BigInt.asUintN(64, left) >> right, true),
  bitnot: {
    arity: [1, 1],
    call: (args) => Number(BigInt.asIntN(64, ~bigInteger(args[0], 'bitnot'))),
  },
};
