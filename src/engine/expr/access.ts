// Member access, indexing and slicing (expr-lang's runtime.Fetch and runtime.Slice). Only own
// entries of plain objects and elements of arrays and strings are reachable: `constructor` or
// `__proto__` on a map is a missing key (nil), and anything else is a fault naming what failed.
import { fault } from './errors.ts';
import { isMap, mapKey, ownEntry, toInteger, typeName } from './values.ts';

function describeKey(key: unknown): string {
  return typeof key === 'string' ? key : key === null || key === undefined ? 'nil' : String(key);
}

/** `object.name`: an entry of a map; a missing one is nil. */
export function fetchProperty(object: unknown, name: string): unknown {
  if (isMap(object)) return ownEntry(object, name);
  throw fault(`cannot fetch ${name} from ${typeName(object)}`);
}

/** `object[key]`: an array or string element (negative counts from the end) or a map entry. */
export function fetchIndex(object: unknown, key: unknown): unknown {
  if (Array.isArray(object)) {
    if (typeof key !== 'number') throw fault(`cannot fetch ${describeKey(key)} from array`);
    const index = elementIndex(key, object.length);
    const value: unknown = object[index];
    return value === undefined ? null : value;
  }
  if (isMap(object)) return ownEntry(object, mapKey(key));
  if (typeof object === 'string') {
    if (typeof key !== 'number') throw fault(`cannot fetch ${describeKey(key)} from string`);
    const characters = Array.from(object);
    return characters[elementIndex(key, characters.length)];
  }
  throw fault(`cannot fetch ${describeKey(key)} from ${typeName(object)}`);
}

function elementIndex(key: number, length: number): number {
  const requested = toInteger(key, 'index');
  const index = requested < 0 ? length + requested : requested;
  if (index < 0 || index >= length) throw fault(`index out of range: ${index} (array length is ${length})`);
  return index;
}

/** `object[from:to]` on arrays and strings; bounds are clamped, negatives count from the end. */
export function slice(object: unknown, from: unknown, to: unknown): unknown {
  if (Array.isArray(object)) {
    const [start, end] = bounds(object.length, from, to);
    return object.slice(start, end);
  }
  if (typeof object === 'string') {
    const characters = Array.from(object);
    const [start, end] = bounds(characters.length, from, to);
    return characters.slice(start, end).join('');
  }
  throw fault(`cannot slice ${typeName(object)}`);
}

function bounds(length: number, from: unknown, to: unknown): [number, number] {
  let start = from === undefined ? 0 : toInteger(from, 'slice');
  let end = to === undefined ? length : toInteger(to, 'slice');
  if (start < 0) start = Math.max(0, length + start);
  if (end < 0) end = Math.max(0, length + end);
  end = Math.min(end, length);
  start = Math.min(start, end);
  return [start, end];
}
