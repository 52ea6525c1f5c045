// String builtins, with Go's strings package semantics (Split with a count keeps the remainder,
// Trim takes a set of characters). Positions count code points, as `len` and slicing do.
import { fault } from './errors.ts';
import { charge, MEMORY_BUDGET, type Builtin } from './frame.ts';
import { expectString, toInteger } from './values.ts';

const string = (args: unknown[], position: number, name: string): string =>
  expectString(args[position], name);

export const TEXT_BUILTINS: Record<string, Builtin> = {
  trim: {
    arity: [1, 2],
    call: (args) => {
      const text = string(args, 0, 'trim');
      if (args.length === 1) return text.trim();
      const cutset = new Set(string(args, 1, 'trim'));
      const characters = Array.from(text);
      let start = 0;
      let end = characters.length;
      while (start < end && cutset.has(characters[start] ?? '')) start += 1;
      while (end > start && cutset.has(characters[end - 1] ?? '')) end -= 1;
      return characters.slice(start, end).join('');
    },
  },
  trimPrefix: {
    arity: [1, 2],
    call: (args) => {
      const text = string(args, 0, 'trimPrefix');
      const prefix = args.length === 2 ? string(args, 1, 'trimPrefix') : ' ';
      return prefix !== '' && text.startsWith(prefix) ? text.slice(prefix.length) : text;
    },
  },
  trimSuffix: {
    arity: [1, 2],
    call: (args) => {
      const text = string(args, 0, 'trimSuffix');
      const suffix = args.length === 2 ? string(args, 1, 'trimSuffix') : ' ';
      return suffix !== '' && text.endsWith(suffix) ? text.slice(0, text.length - suffix.length) : text;
    },
  },
  upper: { arity: [1, 1], call: (args) => string(args, 0, 'upper').toUpperCase() },
  lower: { arity: [1, 1], call: (args) => string(args, 0, 'lower').toLowerCase() },
  split: { arity: [2, 3], call: (args) => splitText(args, 'split', false) },
  splitAfter: { arity: [2, 3], call: (args) => splitText(args, 'splitAfter', true) },
  replace: {
    arity: [3, 4],
    call: (args) => {
      const text = string(args, 0, 'replace');
      const search = string(args, 1, 'replace');
      const replacement = string(args, 2, 'replace');
      const count = args.length === 4 ? toInteger(args[3], 'replace') : -1;
      if (count < 0) return text.replaceAll(search, () => replacement);
      let result = text;
      let from = 0;
      for (let done = 0; done < count; done += 1) {
        const at = result.indexOf(search, from);
        if (at === -1) break;
        result = result.slice(0, at) + replacement + result.slice(at + search.length);
        from = at + replacement.length + (search === '' ? 1 : 0);
      }
      return result;
    },
  },
  repeat: {
    arity: [2, 2],
    call: (args, frame) => {
      const text = string(args, 0, 'repeat');
      const count = toInteger(args[1], 'repeat');
      if (count < 0) throw fault(`invalid argument for repeat (expected positive integer, got ${count})`);
      if (count > MEMORY_BUDGET) throw fault('memory budget exceeded');
      charge(frame, text.length * count);
      return text.repeat(count);
    },
  },
  indexOf: {
    arity: [2, 2],
    call: (args) => {
      const text = string(args, 0, 'indexOf');
      return codePointIndex(text, text.indexOf(string(args, 1, 'indexOf')));
    },
  },
  lastIndexOf: {
    arity: [2, 2],
    call: (args) => {
      const text = string(args, 0, 'lastIndexOf');
      return codePointIndex(text, text.lastIndexOf(string(args, 1, 'lastIndexOf')));
    },
  },
  hasPrefix: {
    arity: [2, 2],
    call: (args) => string(args, 0, 'hasPrefix').startsWith(string(args, 1, 'hasPrefix')),
  },
  hasSuffix: {
    arity: [2, 2],
    call: (args) => string(args, 0, 'hasSuffix').endsWith(string(args, 1, 'hasSuffix')),
  },
  toBase64: {
    arity: [1, 1],
    call: (args) => Buffer.from(string(args, 0, 'toBase64'), 'utf8').toString('base64'),
  },
  fromBase64: {
    arity: [1, 1],
    call: (args) => {
      const text = string(args, 0, 'fromBase64');
      if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
        throw fault('illegal base64 data');
      }
      return Buffer.from(text, 'base64').toString('utf8');
    },
  },
};

/** Go's strings.Split/SplitN (and the After forms): with a count, the last part is the rest. */
function splitText(args: unknown[], name: string, keepSeparator: boolean): string[] {
  const text = string(args, 0, name);
  const separator = string(args, 1, name);
  const limit = args.length === 3 ? toInteger(args[2], name) : -1;
  if (limit === 0) return [];
  const parts: string[] = [];
  if (separator === '') {
    const characters = Array.from(text);
    const whole = limit < 0 || limit >= characters.length ? characters.length : limit - 1;
    parts.push(...characters.slice(0, whole));
    if (whole < characters.length) parts.push(characters.slice(whole).join(''));
    return parts;
  }
  let from = 0;
  while (limit < 0 || parts.length < limit - 1) {
    const at = text.indexOf(separator, from);
    if (at === -1) break;
    parts.push(text.slice(from, keepSeparator ? at + separator.length : at));
    from = at + separator.length;
  }
  parts.push(text.slice(from));
  return parts;
}

function codePointIndex(text: string, unitIndex: number): number {
  if (unitIndex <= 0) return unitIndex;
  return Array.from(text.slice(0, unitIndex)).length;
}
