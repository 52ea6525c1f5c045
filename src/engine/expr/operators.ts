// The binary and unary operators, with expr-lang's runtime semantics (vm/runtime): `/` always
// divides as floats, `%` takes integers only, `**` gives a float, `+` also joins strings, and
// times and durations combine as in Go.
import { fault } from './errors.ts';
import { charge, MAX_STRING_LENGTH, type Frame } from './frame.ts';
import { ExprDuration, ExprTime } from './time-value.ts';
import { compare, equal, isMap, mapKey, toInteger, typeName } from './values.ts';

function invalid(left: unknown, operator: string, right: unknown): Error {
  return fault(`invalid operation: ${typeName(left)} ${operator} ${typeName(right)}`);
}

export function add(left: unknown, right: unknown): unknown {
  if (typeof left === 'number' && typeof right === 'number') return left + right;
  if (typeof left === 'string' && typeof right === 'string') {
    if (left.length + right.length > MAX_STRING_LENGTH) throw fault('memory budget exceeded');
    return left + right;
  }
  if (left instanceof ExprTime && right instanceof ExprDuration) return left.plus(right);
  if (left instanceof ExprDuration && right instanceof ExprTime) return right.plus(left);
  if (left instanceof ExprDuration && right instanceof ExprDuration) {
    return new ExprDuration(left.nanoseconds + right.nanoseconds);
  }
  throw invalid(left, '+', right);
}

export function subtract(left: unknown, right: unknown): unknown {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  if (left instanceof ExprTime && right instanceof ExprTime) return left.minus(right);
  if (left instanceof ExprTime && right instanceof ExprDuration) {
    return left.plus(new ExprDuration(-right.nanoseconds));
  }
  if (left instanceof ExprDuration && right instanceof ExprDuration) {
    return new ExprDuration(left.nanoseconds - right.nanoseconds);
  }
  throw invalid(left, '-', right);
}

/** A duration times an integer is a duration; times a float, Go gives plain nanoseconds. */
export function multiply(left: unknown, right: unknown): unknown {
  if (typeof left === 'number' && typeof right === 'number') return left * right;
  if (left instanceof ExprDuration && typeof right === 'number') return scale(left, right);
  if (typeof left === 'number' && right instanceof ExprDuration) return scale(right, left);
  throw invalid(left, '*', right);
}

function scale(duration: ExprDuration, factor: number): unknown {
  const product = duration.nanoseconds * factor;
  return Number.isInteger(factor) ? new ExprDuration(product) : product;
}

export function divide(left: unknown, right: unknown): number {
  if (typeof left === 'number' && typeof right === 'number') return left / right;
  throw invalid(left, '/', right);
}

export function modulo(left: unknown, right: unknown): number {
  if (typeof left === 'number' && typeof right === 'number') {
    if (!Number.isInteger(left) || !Number.isInteger(right)) throw invalid(left, '%', right);
    if (right === 0) throw fault('integer divide by zero');
    return (left % right) + 0;
  }
  throw invalid(left, '%', right);
}

export function power(left: unknown, right: unknown): number {
  if (typeof left === 'number' && typeof right === 'number') return left ** right;
  throw invalid(left, '**', right);
}

export function negate(value: unknown): number {
  if (typeof value === 'number') return value === 0 ? 0 : -value;
  throw fault(`invalid operation: - ${typeName(value)}`);
}

export function plus(value: unknown): number {
  if (typeof value === 'number') return value;
  throw fault(`invalid operation: + ${typeName(value)}`);
}

/** `from..to`, both ends included; empty when `to` is below `from`. */
export function range(from: unknown, to: unknown, frame: Frame): number[] {
  if (typeof from !== 'number' || typeof to !== 'number') throw invalid(from, '..', to);
  const start = toInteger(from, '..');
  const size = Math.max(0, toInteger(to, '..') - start + 1);
  charge(frame, size);
  const values = new Array<number>(size);
  for (let index = 0; index < size; index += 1) values[index] = start + index;
  return values;
}

/** `in`: an element of an array, or a key of a map; nothing is in nil. */
export function isIn(needle: unknown, haystack: unknown): boolean {
  if (haystack === null || haystack === undefined) return false;
  if (Array.isArray(haystack)) {
    for (const item of haystack) if (equal(item, needle)) return true;
    return false;
  }
  if (isMap(haystack)) return Object.hasOwn(haystack, mapKey(needle));
  throw fault(`operator "in" not defined on ${typeName(haystack)}`);
}

export type StringTest = 'contains' | 'startsWith' | 'endsWith';

/** `contains`, `startsWith`, `endsWith`: false when either side is nil, as in expr-lang. */
export function testString(operator: StringTest, left: unknown, right: unknown): boolean {
  if (left === null || left === undefined || right === null || right === undefined) return false;
  if (typeof left !== 'string' || typeof right !== 'string') throw invalid(left, operator, right);
  if (operator === 'contains') return left.includes(right);
  return operator === 'startsWith' ? left.startsWith(right) : left.endsWith(right);
}

type Operation = (left: unknown, right: unknown, frame: Frame) => unknown;

/** The operators that evaluate both operands and then combine them. */
export const BINARY_OPERATIONS: Record<string, Operation> = {
  '+': add,
  '-': subtract,
  '*': multiply,
  '/': divide,
  '%': modulo,
  '**': power,
  '^': power,
  '<': (left, right) => compare(left, right, '<') < 0,
  '>': (left, right) => compare(left, right, '>') > 0,
  '<=': (left, right) => compare(left, right, '<=') <= 0,
  '>=': (left, right) => compare(left, right, '>=') >= 0,
  in: isIn,
  contains: (left, right) => testString('contains', left, right),
  startsWith: (left, right) => testString('startsWith', left, right),
  endsWith: (left, right) => testString('endsWith', left, right),
  '..': range,
};
