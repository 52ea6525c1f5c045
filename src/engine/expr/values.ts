// The values an expression handles and how they compare. JSON-shaped data comes in: nil (null or
// undefined), booleans, numbers, strings, arrays and plain objects (maps); the language adds
// times, durations and locations. A number is an `int` when it is integral and a `float`
// otherwise: JS has one number type, and RuleGo's JSON numbers are all float64 anyway.
import { fault } from './errors.ts';
import { ExprDuration, ExprLocation, ExprTime } from './time-value.ts';

export type ExprMap = Record<string, unknown>;

/**
 * A map is a plain object: an object literal, JSON.parse output or Object.create(null). Class
 * instances are not maps, so an expression never reaches their methods or prototypes.
 */
export function isMap(value: unknown): value is ExprMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** An own entry of a map, nil when absent; never an inherited property. */
export function ownEntry(map: ExprMap, key: string): unknown {
  const value = map[key];
  if (value === undefined) return null;
  return Object.hasOwn(map, key) ? value : null;
}

/** Sets an own entry, even for `__proto__`, which plain assignment would treat as the prototype. */
export function setEntry(map: ExprMap, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true });
  else map[key] = value;
}

/** The name of a value's type, as expr-lang's `type()` gives it and as error messages use it. */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'string':
      return 'string';
    case 'function':
      return 'func';
    case 'object':
      if (Array.isArray(value)) return 'array';
      if (value instanceof ExprTime) return 'time.Time';
      if (value instanceof ExprDuration) return 'time.Duration';
      if (value instanceof ExprLocation) return '*time.Location';
      return isMap(value) ? 'map' : 'unknown';
    case 'bigint':
    case 'symbol':
    case 'undefined':
      break;
  }
  return 'unknown';
}

/** Map keys are strings; expr-lang's maps may also be keyed by numbers, booleans or nil. */
export function mapKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number' || typeof key === 'boolean') return String(key);
  if (key === null || key === undefined) return '<nil>';
  throw fault(`cannot use ${typeName(key)} as a map key`);
}

/** `==`: numbers by value, arrays and maps element by element, times by instant. */
export function equal(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (left === null || left === undefined) return right === null || right === undefined;
  if (typeof left !== 'object' || typeof right !== 'object' || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => equal(item, right[index]));
  }
  if (left instanceof ExprTime) {
    return right instanceof ExprTime && left.epochMilliseconds === right.epochMilliseconds;
  }
  if (left instanceof ExprDuration) {
    return right instanceof ExprDuration && left.nanoseconds === right.nanoseconds;
  }
  if (left instanceof ExprLocation) return right instanceof ExprLocation && left.name === right.name;
  if (!isMap(left) || !isMap(right)) return false;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && equal(left[key], right[key]));
}

/**
 * Orders two values for `<`, `>`, `<=`, `>=`, `sort` and `max`: numbers, strings, times and
 * durations, each only with its own kind. Negative, zero or positive as `left` is smaller.
 */
export function compare(left: unknown, right: unknown, operator: string): number {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  if (left instanceof ExprTime && right instanceof ExprTime) {
    return left.epochMilliseconds - right.epochMilliseconds;
  }
  if (left instanceof ExprDuration && right instanceof ExprDuration) {
    return left.nanoseconds - right.nanoseconds;
  }
  throw fault(`invalid operation: ${typeName(left)} ${operator} ${typeName(right)}`);
}

/** A boolean for `and`, `or`, `not`, `?:` and predicates; expr-lang has no truthiness. */
export function expectBool(value: unknown, context: string): boolean {
  if (typeof value === 'boolean') return value;
  throw fault(`${context} expects bool, got ${typeName(value)}`);
}

export function expectString(value: unknown, context: string): string {
  if (typeof value === 'string') return value;
  throw fault(`cannot use ${typeName(value)} as argument (type string) to call ${context}`);
}

export function expectNumber(value: unknown, context: string): number {
  if (typeof value === 'number') return value;
  throw fault(`cannot use ${typeName(value)} as argument (type number) to call ${context}`);
}

/** Go's runtime.ToInt: numbers truncate toward zero; anything else is a fault. */
export function toInteger(value: unknown, context: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  throw fault(`cannot use ${typeName(value)} as argument (type int) to call ${context}`);
}

export function expectArray(value: unknown, context: string): readonly unknown[] {
  if (Array.isArray(value)) return value;
  throw fault(`cannot use ${typeName(value)} as argument (type array) to call ${context}`);
}

export function expectMap(value: unknown, context: string): ExprMap {
  if (isMap(value)) return value;
  throw fault(`cannot use ${typeName(value)} as argument (type map) to call ${context}`);
}
