// Every builtin that takes plain values, by name. The predicate builtins (`all`, `map`,
// `filter`...) take closures and are compiled in predicates.ts instead.
import { COLLECTION_BUILTINS } from './builtins-collection.ts';
import { CONVERT_BUILTINS } from './builtins-convert.ts';
import { NUMBER_BUILTINS } from './builtins-number.ts';
import { TEXT_BUILTINS } from './builtins-text.ts';
import { TIME_BUILTINS } from './builtins-time.ts';
import type { Builtin } from './frame.ts';

export const BUILTINS: ReadonlyMap<string, Builtin> = new Map(
  Object.entries({
    ...TEXT_BUILTINS,
    ...NUMBER_BUILTINS,
    ...COLLECTION_BUILTINS,
    ...CONVERT_BUILTINS,
    ...TIME_BUILTINS,
  }),
);

/** The compile-time message for a call with the wrong number of arguments. */
export function arityProblem(name: string, builtin: Builtin, count: number): string | undefined {
  const [fewest, most] = builtin.arity;
  if (count >= fewest && count <= most) return undefined;
  const expected =
    fewest === most
      ? String(fewest)
      : most === Infinity
        ? `at least ${fewest}`
        : `${fewest} ${most === fewest + 1 ? 'or' : 'to'} ${most}`;
  return `invalid number of arguments for ${name} (expected ${expected}, got ${count})`;
}
