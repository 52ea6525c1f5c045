// The builtins that run a predicate per element: `all`, `any`, `filter`, `map`, `reduce`... Each
// loop publishes the element at a fixed index of `frame.loops`, the predicate's nesting level,
// so `#`, `#index` and `#acc` compile to a direct read.
import { fault } from './errors.ts';
import { charge, countIteration, type Evaluator, type Frame, type Loop } from './frame.ts';
import { sortOrder } from './builtins-collection.ts';
import { add } from './operators.ts';
import { compare, expectArray, mapKey, setEntry, typeName, type ExprMap } from './values.ts';

export interface PredicateCall {
  name: string;
  /** Index in `frame.loops` of this call's element. */
  level: number;
  collection: Evaluator;
  predicate: Evaluator | undefined;
  /** The third argument: `sortBy`'s order or `reduce`'s initial value. */
  extra: Evaluator | undefined;
  at: number;
}

type Visit = (item: unknown, index: number) => boolean | void;

/** Runs `visit` per element (stopping when it returns true) with the loop published for `#`. */
function iterate(frame: Frame, call: PredicateCall, items: readonly unknown[], visit: Visit, from = 0) {
  const loop: Loop = { item: null, index: 0, accumulator: null };
  frame.loops[call.level] = loop;
  for (let index = from; index < items.length; index += 1) {
    countIteration(frame);
    const item = items[index];
    loop.item = item === undefined ? null : item;
    loop.index = index;
    if (visit(loop.item, index) === true) return;
  }
}

function test(frame: Frame, call: PredicateCall, predicate: Evaluator): boolean {
  const result = predicate(frame);
  if (typeof result === 'boolean') return result;
  frame.at = call.at;
  throw fault(`predicate of ${call.name} must return bool, got ${typeName(result)}`);
}

function collect(call: PredicateCall, frame: Frame): readonly unknown[] {
  const value = call.collection(frame);
  frame.at = call.at;
  return expectArray(value, call.name);
}

export function compilePredicateCall(call: PredicateCall): Evaluator {
  const { name, predicate, extra } = call;
  if (predicate === undefined) {
    if (name === 'count') return (frame) => countTrue(frame, call);
    return (frame) => sum(frame, call, undefined);
  }
  const check = (frame: Frame) => test(frame, call, predicate);
  switch (name) {
    case 'all':
    case 'none':
    case 'any': {
      // all: stop at the first false; none and any: stop at the first true.
      const stopOn = name !== 'all';
      return (frame) => {
        let stopped = false;
        iterate(frame, call, collect(call, frame), () => (stopped = check(frame) === stopOn));
        return name === 'any' ? stopped : !stopped;
      };
    }
    case 'one':
      return (frame) => matching(frame, call, check) === 1;
    case 'count':
      return (frame) => matching(frame, call, check);
    case 'filter':
      return (frame) => {
        const kept: unknown[] = [];
        iterate(frame, call, collect(call, frame), (item) => void (check(frame) && kept.push(item)));
        charge(frame, kept.length);
        return kept;
      };
    case 'map':
      return (frame) => {
        const items = collect(call, frame);
        charge(frame, items.length);
        const mapped: unknown[] = [];
        iterate(frame, call, items, () => void mapped.push(predicate(frame)));
        return mapped;
      };
    case 'sum':
      return (frame) => sum(frame, call, predicate);
    case 'find':
    case 'findIndex':
    case 'findLast':
    case 'findLastIndex':
      return (frame) => find(frame, call, check);
    case 'groupBy':
      return (frame) => {
        const groups: ExprMap = {};
        iterate(frame, call, collect(call, frame), (item) => {
          const key = mapKey(predicate(frame));
          const group = Object.hasOwn(groups, key) ? (groups[key] as unknown[]) : [];
          if (group.length === 0) setEntry(groups, key, group);
          group.push(item);
        });
        return groups;
      };
    case 'sortBy':
      return (frame) => sortBy(frame, call, predicate, extra);
    case 'reduce':
      return (frame) => reduce(frame, call, predicate, extra);
    default:
      throw new Error(`no predicate builtin ${name}`);
  }
}

function matching(frame: Frame, call: PredicateCall, check: (frame: Frame) => boolean): number {
  let count = 0;
  iterate(frame, call, collect(call, frame), () => void (check(frame) && (count += 1)));
  return count;
}

/** `count(array)` without a predicate counts the elements that are `true`. */
function countTrue(frame: Frame, call: PredicateCall): number {
  let count = 0;
  iterate(frame, call, collect(call, frame), (item) => {
    if (typeof item !== 'boolean') {
      frame.at = call.at;
      throw fault(`count expects bool elements, got ${typeName(item)}`);
    }
    if (item) count += 1;
  });
  return count;
}

function sum(frame: Frame, call: PredicateCall, predicate: Evaluator | undefined): unknown {
  let total: unknown = 0;
  iterate(frame, call, collect(call, frame), (item) => {
    const value = predicate ? predicate(frame) : item;
    frame.at = call.at;
    total = add(total, value);
  });
  return total;
}

function find(frame: Frame, call: PredicateCall, check: (frame: Frame) => boolean): unknown {
  const items = collect(call, frame);
  const backwards = call.name.startsWith('findLast');
  const loop: Loop = { item: null, index: 0, accumulator: null };
  frame.loops[call.level] = loop;
  for (let step = 0; step < items.length; step += 1) {
    countIteration(frame);
    const index = backwards ? items.length - 1 - step : step;
    const item = items[index];
    loop.item = item === undefined ? null : item;
    loop.index = index;
    if (check(frame)) return call.name.endsWith('Index') ? index : loop.item;
  }
  return null;
}

function sortBy(frame: Frame, call: PredicateCall, predicate: Evaluator, extra: Evaluator | undefined) {
  const items = collect(call, frame);
  const direction = extra === undefined ? 1 : sortOrder(extra(frame));
  const keys: unknown[] = [];
  iterate(frame, call, items, () => void keys.push(predicate(frame)));
  frame.at = call.at;
  charge(frame, items.length);
  const order = [...items.keys()].sort((left, right) => compare(keys[left], keys[right], '<') * direction);
  return order.map((index) => items[index]);
}

function reduce(frame: Frame, call: PredicateCall, predicate: Evaluator, extra: Evaluator | undefined) {
  const items = collect(call, frame);
  let accumulator: unknown;
  let from = 0;
  if (extra !== undefined) {
    accumulator = extra(frame);
  } else {
    frame.at = call.at;
    if (items.length === 0) throw fault('reduce of empty array with no initial value');
    accumulator = items[0];
    from = 1;
  }
  iterate(
    frame,
    call,
    items,
    () => {
      (frame.loops[call.level] as Loop).accumulator = accumulator;
      accumulator = predicate(frame);
    },
    from,
  );
  return accumulator === undefined ? null : accumulator;
}
