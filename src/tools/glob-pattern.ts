// A small glob dialect over `/`-separated relative paths:
//   *  any run of characters except `/`        ?  one character except `/`
//   ** any number of whole path segments       {a,b}  alternatives (nestable)
//   [abc] [a-z] [!abc]  a character class      \x  the character x itself
// A glob compiles to an automaton that reads the path once, following every live state at the same
// time (Thompson's construction), so no glob can backtrack: matching costs at most the number of
// states times the path length. A backtracking RegExp took seconds on "*a*a*a*a*a*a*a*a*b".
import { AppError } from '../core/errors.ts';

/** Longest glob accepted. Each character adds at most three states, so this also bounds the automaton. */
export const MAX_GLOB_LENGTH = 500;

const GLOB_CHARACTERS = /[*?[{\\]/;
const SLASH = 0x2f;
const HYPHEN = 0x2d;

export interface GlobMatcher {
  /** True when the whole relative path matches. */
  test(path: string): boolean;
}

/** Compiles a glob to a matcher of whole relative paths; refuses an over-long or malformed glob. */
export function compileGlob(pattern: string): GlobMatcher {
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw new AppError('invalid', `glob pattern too long (at most ${MAX_GLOB_LENGTH} characters)`);
  }
  const atoms = new GlobParser(pattern).sequence(false);
  const automaton = new Automaton();
  const start = automaton.sequence(atoms, automaton.add({ kind: 'accept' }));
  return { test: (path) => automaton.matches(start, path) };
}

/**
 * The literal folder a glob starts in ("src/lib" for "src/lib/**\/*.ts"), so a walk can begin
 * there instead of at the root. Empty when the first segment already has glob characters.
 */
export function globBase(pattern: string): string {
  const segments = pattern.split('/');
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (GLOB_CHARACTERS.test(segment)) break;
    literal.push(segment);
  }
  return literal.join('/');
}

type CharacterTest = (codePoint: number) => boolean;

type Atom =
  /** Exactly one character passing the test. */
  | { kind: 'character'; test: CharacterTest }
  /** Any number of characters passing the test. */
  | { kind: 'repeat'; test: CharacterTest }
  /** Any number of whole segments, each with its trailing `/` (a `**\/`). */
  | { kind: 'segments' }
  | { kind: 'alternatives'; options: Atom[][] };

const notSlash: CharacterTest = (codePoint) => codePoint !== SLASH;
const anyCharacter: CharacterTest = () => true;
const NAME_RUN: Atom = { kind: 'repeat', test: notSlash };

function literal(codePoint: number): Atom {
  return { kind: 'character', test: (candidate) => candidate === codePoint };
}

class GlobParser {
  private index = 0;

  constructor(private readonly pattern: string) {}

  /** Parses until the end, or (inside braces) until the `,` or `}` that ends an alternative. */
  sequence(inBraces: boolean): Atom[] {
    const atoms: Atom[] = [];
    while (this.index < this.pattern.length) {
      const character = this.pattern[this.index] as string;
      if (inBraces && (character === ',' || character === '}')) return atoms;
      this.index += 1;
      switch (character) {
        case '*':
          atoms.push(this.star());
          break;
        case '?':
          atoms.push({ kind: 'character', test: notSlash });
          break;
        case '{':
          atoms.push(this.alternatives());
          break;
        case '[':
          atoms.push(this.characterClass());
          break;
        case '\\':
          // A trailing backslash stands for itself.
          atoms.push(this.index < this.pattern.length ? this.literalAt(this.index) : literal(0x5c));
          break;
        default:
          atoms.push(this.literalAt(this.index - 1));
      }
    }
    return atoms;
  }

  // One whole code point, so a character outside the BMP is matched as one character, as `?` does.
  private literalAt(index: number): Atom {
    const codePoint = this.pattern.codePointAt(index) as number;
    this.index = index + (codePoint > 0xffff ? 2 : 1);
    return literal(codePoint);
  }

  private star(): Atom {
    const start = this.index - 1;
    if (this.pattern[this.index] !== '*') return NAME_RUN;
    while (this.pattern[this.index] === '*') this.index += 1;
    const atSegmentStart = start === 0 || this.pattern[start - 1] === '/';
    const next = this.pattern[this.index];
    // `**` only spans folders when it is a whole segment; elsewhere it is just `*`.
    if (!atSegmentStart) return NAME_RUN;
    if (next === '/') {
      this.index += 1;
      return { kind: 'segments' };
    }
    if (next === undefined) return { kind: 'repeat', test: anyCharacter };
    return NAME_RUN;
  }

  private alternatives(): Atom {
    const options: Atom[][] = [];
    for (;;) {
      options.push(this.sequence(true));
      const delimiter = this.pattern[this.index];
      this.index += 1;
      if (delimiter !== ',') break;
    }
    return { kind: 'alternatives', options };
  }

  // `[` without a later `]` is a plain `[`; a `]` right after `[` (or `[!`) belongs to the class.
  private characterClass(): Atom {
    const close = this.pattern.indexOf(']', this.index + 1);
    if (close === -1) return literal(0x5b);
    let body = this.pattern.slice(this.index, close);
    this.index = close + 1;
    const negated = body.startsWith('!') || body.startsWith('^');
    if (negated) body = body.slice(1);
    const ranges = classRanges(body);
    const inClass = (codePoint: number): boolean =>
      ranges.some(([low, high]) => codePoint >= low && codePoint <= high);
    // Neither form ever matches `/`, which only a `/` of the pattern itself can.
    return {
      kind: 'character',
      test: negated
        ? (codePoint) => codePoint !== SLASH && !inClass(codePoint)
        : (codePoint) => codePoint !== SLASH && inClass(codePoint),
    };
  }
}

// Every character of a class body is literal except a `-` between two characters.
function classRanges(body: string): Array<[number, number]> {
  const points = Array.from(body, (character) => character.codePointAt(0) as number);
  const ranges: Array<[number, number]> = [];
  for (let index = 0; index < points.length; index += 1) {
    const low = points[index] as number;
    const high = points[index + 2];
    if (points[index + 1] === HYPHEN && high !== undefined) {
      if (high < low) throw new AppError('invalid', `invalid glob pattern: range out of order in [${body}]`);
      ranges.push([low, high]);
      index += 2;
    } else {
      ranges.push([low, low]);
    }
  }
  return ranges;
}

type State =
  | { kind: 'step'; test: CharacterTest; next: number }
  | { kind: 'split'; next: number[] }
  | { kind: 'accept' };

class Automaton {
  private readonly states: State[] = [];

  add(state: State): number {
    this.states.push(state);
    return this.states.length - 1;
  }

  /** Builds the atoms back to front, each leading on to the state after it; returns the first. */
  sequence(atoms: Atom[], next: number): number {
    let start = next;
    for (let index = atoms.length - 1; index >= 0; index -= 1) start = this.atom(atoms[index] as Atom, start);
    return start;
  }

  private atom(atom: Atom, next: number): number {
    switch (atom.kind) {
      case 'character':
        return this.add({ kind: 'step', test: atom.test, next });
      case 'repeat': {
        const loop: State = { kind: 'split', next: [] };
        const start = this.add(loop);
        loop.next = [this.add({ kind: 'step', test: atom.test, next: start }), next];
        return start;
      }
      case 'segments': {
        const loop: State = { kind: 'split', next: [] };
        const start = this.add(loop);
        const slash = this.add({ kind: 'step', test: (codePoint) => codePoint === SLASH, next: start });
        loop.next = [this.atom(NAME_RUN, slash), next];
        return start;
      }
      case 'alternatives':
        return this.add({ kind: 'split', next: atom.options.map((option) => this.sequence(option, next)) });
    }
  }

  /** Runs the path through the automaton, one code point at a time, keeping the set of live states. */
  matches(start: number, path: string): boolean {
    const seen = new Uint32Array(this.states.length);
    let round = 1;
    let live = this.follow([start], seen, round);
    for (const character of path) {
      if (live.length === 0) return false;
      const codePoint = character.codePointAt(0) as number;
      const targets: number[] = [];
      for (const index of live) {
        const state = this.states[index] as State;
        if (state.kind === 'step' && state.test(codePoint)) targets.push(state.next);
      }
      round += 1;
      live = this.follow(targets, seen, round);
    }
    return live.some((index) => this.states[index]?.kind === 'accept');
  }

  // The states reachable from `from` without reading a character, splits left out; `seen` marks
  // what this round has visited, so each state is listed once.
  private follow(from: number[], seen: Uint32Array, round: number): number[] {
    const reached: number[] = [];
    const stack = from.slice().reverse();
    while (stack.length > 0) {
      const index = stack.pop() as number;
      if (seen[index] === round) continue;
      seen[index] = round;
      const state = this.states[index] as State;
      if (state.kind === 'split') {
        for (let branch = state.next.length - 1; branch >= 0; branch -= 1)
          stack.push(state.next[branch] as number);
      } else {
        reached.push(index);
      }
    }
    return reached;
  }
}
