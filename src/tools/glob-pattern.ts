// A small glob dialect, compiled to a RegExp over `/`-separated relative paths:
//   *  any run of characters except `/`        ?  one character except `/`
//   ** any number of whole path segments       {a,b}  alternatives (nestable)
//   [abc] [a-z] [!abc]  a character class      \x  the character x itself

const GLOB_CHARACTERS = /[*?[{\\]/;

/** Compiles a glob to an anchored RegExp that matches whole relative paths. */
export function compileGlob(pattern: string): RegExp {
  const compiler = new GlobCompiler(pattern);
  return new RegExp(`^${compiler.sequence(false)}$`, 'u');
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

class GlobCompiler {
  private index = 0;

  constructor(private readonly pattern: string) {}

  /** Compiles until the end, or (inside braces) until the `,` or `}` that ends an alternative. */
  sequence(inBraces: boolean): string {
    let source = '';
    while (this.index < this.pattern.length) {
      const character = this.pattern[this.index] as string;
      if (inBraces && (character === ',' || character === '}')) return source;
      this.index += 1;
      switch (character) {
        case '*':
          source += this.star();
          break;
        case '?':
          source += '[^/]';
          break;
        case '{':
          source += this.alternatives();
          break;
        case '[':
          source += this.characterClass();
          break;
        case '\\':
          source += escape(this.pattern[this.index] ?? '\\');
          this.index += 1;
          break;
        default:
          source += escape(character);
      }
    }
    return source;
  }

  private star(): string {
    const start = this.index - 1;
    if (this.pattern[this.index] !== '*') return '[^/]*';
    while (this.pattern[this.index] === '*') this.index += 1;
    const atSegmentStart = start === 0 || this.pattern[start - 1] === '/';
    const next = this.pattern[this.index];
    // `**` only spans folders when it is a whole segment; elsewhere it is just `*`.
    if (!atSegmentStart) return '[^/]*';
    if (next === '/') {
      this.index += 1;
      return '(?:[^/]*/)*';
    }
    if (next === undefined) return '.*';
    return '[^/]*';
  }

  private alternatives(): string {
    const options: string[] = [];
    for (;;) {
      options.push(this.sequence(true));
      const delimiter = this.pattern[this.index];
      this.index += 1;
      if (delimiter !== ',') break;
    }
    return `(?:${options.join('|')})`;
  }

  private characterClass(): string {
    const close = this.pattern.indexOf(']', this.index + 1);
    if (close === -1) return '\\[';
    let body = this.pattern.slice(this.index, close);
    this.index = close + 1;
    const negated = body.startsWith('!') || body.startsWith('^');
    if (negated) body = body.slice(1);
    const escaped = body.replace(/[\\\]^[]/gu, '\\$&');
    return negated ? `[^/${escaped}]` : `(?!/)[${escaped}]`;
  }
}

function escape(character: string): string {
  return character.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&');
}
