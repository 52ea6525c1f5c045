// `matches` patterns are Go RE2 syntax; most of it is JS syntax too. The common differences are
// bridged: leading inline flags `(?i)`, `(?s)`, `(?m)`, named groups `(?P<name>...)`, `\A`, `\z`.
// JS regexps backtrack where RE2 does not, so a hostile pattern can be slow: patterns come from
// chain authors, who are trusted to configure the chain, not from messages.
import { fault } from './errors.ts';
import { typeName } from './values.ts';

export function compilePattern(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline?.[1] !== undefined) {
    if (inline[1].includes('U')) throw fault(`error parsing regexp: unsupported flag U in ${pattern}`);
    flags = [...new Set(inline[1])].join('');
    source = source.slice(inline[0].length);
  }
  source = source.replaceAll('(?P<', '(?<').replace(/\\A/g, '^').replace(/\\z/g, '$(?![\\s\\S])');
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (error) {
      throw fault(`error parsing regexp: ${(error as Error).message}`);
    }
  }
}

/** `text matches pattern`: false when the text is nil. */
export function matches(text: unknown, pattern: RegExp): boolean {
  if (text === null || text === undefined) return false;
  if (typeof text !== 'string') throw fault(`invalid operation: ${typeName(text)} matches string`);
  return pattern.test(text);
}
