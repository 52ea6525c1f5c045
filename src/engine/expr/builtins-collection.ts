// Array and map builtins. Results are new arrays and maps; inputs are never changed. Arrays the
// builtins build count against the memory budget, as in expr-lang.
import { fault } from './errors.ts';
import { charge, type Builtin } from './frame.ts';
import {
  compare,
  equal,
  expectArray,
  expectMap,
  expectString,
  isMap,
  mapKey,
  ownEntry,
  setEntry,
  toInteger,
  typeName,
  type ExprMap,
} from './values.ts';

const MAX_DEPTH = 1000;

function codePointLength(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0xdc00 && code <= 0xdfff && index > 0) length -= 1;
  }
  return length;
}

function flatten(items: readonly unknown[], into: unknown[], depth: number): unknown[] {
  if (depth > MAX_DEPTH) throw fault('recursion depth exceeded');
  for (const item of items) {
    if (Array.isArray(item)) flatten(item, into, depth + 1);
    else into.push(item);
  }
  return into;
}

/** `asc` or `desc`; anything else is a fault, as in expr-lang. */
export function sortOrder(value: unknown): number {
  if (typeof value !== 'string') throw fault(`sort order argument must be a string (got ${typeName(value)})`);
  if (value === 'asc') return 1;
  if (value === 'desc') return -1;
  throw fault(`invalid order ${value}, expected asc or desc`);
}

export const COLLECTION_BUILTINS: Record<string, Builtin> = {
  len: {
    arity: [1, 1],
    call: ([value]) => {
      if (Array.isArray(value)) return value.length;
      if (typeof value === 'string') return codePointLength(value);
      if (isMap(value)) return Object.keys(value).length;
      throw fault(`invalid argument for len (type ${typeName(value)})`);
    },
  },
  first: { arity: [1, 1], call: ([value]) => edge(value, 'first', 0) },
  last: { arity: [1, 1], call: ([value]) => edge(value, 'last', -1) },
  get: {
    arity: [2, 2],
    call: ([value, key]) => {
      if (value === null || value === undefined) return null;
      if (isMap(value)) return ownEntry(value, mapKey(key));
      if (!Array.isArray(value)) throw fault(`type ${typeName(value)} does not support indexing`);
      if (typeof key !== 'number') return null;
      const index = Math.trunc(key) < 0 ? value.length + Math.trunc(key) : Math.trunc(key);
      const item: unknown = value[index];
      return item === undefined ? null : item;
    },
  },
  take: {
    arity: [2, 2],
    call: ([value, count]) => {
      const items = expectArray(value, 'take');
      const size = toInteger(count, 'take');
      if (size < 0) throw fault(`cannot take ${size} elements`);
      return items.slice(0, size);
    },
  },
  join: {
    arity: [1, 2],
    call: ([value, glue]) => {
      const parts = expectArray(value, 'join').map((item) => expectString(item, 'join'));
      return parts.join(glue === undefined ? '' : expectString(glue, 'join'));
    },
  },
  reverse: {
    arity: [1, 1],
    call: ([value], frame) => {
      const items = expectArray(value, 'reverse');
      charge(frame, items.length);
      return [...items].reverse();
    },
  },
  sort: {
    arity: [1, 2],
    call: ([value, order], frame) => {
      const items = expectArray(value, 'sort');
      const direction = order === undefined ? 1 : sortOrder(order);
      charge(frame, items.length);
      return [...items].sort((left, right) => compare(left, right, '<') * direction);
    },
  },
  uniq: {
    arity: [1, 1],
    call: ([value], frame) => {
      const unique: unknown[] = [];
      for (const item of expectArray(value, 'uniq')) {
        if (!unique.some((seen) => equal(seen, item))) unique.push(item);
      }
      charge(frame, unique.length);
      return unique;
    },
  },
  concat: {
    arity: [1, Infinity],
    call: (args, frame) => {
      const joined = args.flatMap((arg) => expectArray(arg, 'concat'));
      charge(frame, joined.length);
      return joined;
    },
  },
  flatten: {
    arity: [1, 1],
    call: ([value], frame) => {
      const flat = flatten(expectArray(value, 'flatten'), [], 0);
      charge(frame, flat.length);
      return flat;
    },
  },
  keys: { arity: [1, 1], call: ([value]) => Object.keys(expectMap(value, 'keys')) },
  values: {
    arity: [1, 1],
    call: ([value]) => {
      const map = expectMap(value, 'values');
      return Object.keys(map).map((key) => map[key] ?? null);
    },
  },
  toPairs: {
    arity: [1, 1],
    call: ([value]) => {
      const map = expectMap(value, 'toPairs');
      return Object.keys(map).map((key) => [key, map[key] ?? null]);
    },
  },
  fromPairs: {
    arity: [1, 1],
    call: ([value]) => {
      const map: ExprMap = {};
      for (const pair of expectArray(value, 'fromPairs')) {
        if (!Array.isArray(pair) || pair.length !== 2) throw fault(`invalid pair ${typeName(pair)}`);
        setEntry(map, mapKey(pair[0]), pair[1]);
      }
      return map;
    },
  },
};

/** `first` and `last`: nil for an empty array or nil, as expr-lang recovers to nil. */
function edge(value: unknown, name: string, index: number): unknown {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) throw fault(`cannot get ${name} element from ${typeName(value)}`);
  const item: unknown = value.at(index);
  return item === undefined ? null : item;
}
