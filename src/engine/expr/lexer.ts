// Splits an expression into tokens, following expr-lang's lexer (parser/lexer/state.go): the same
// number forms, both quote kinds with Go escapes, backtick raw strings, comments, and word
// operators (`and`, `in`, `matches`...) emitted as operators.
import { ExprSyntaxError } from './errors.ts';

export type TokenKind = 'identifier' | 'number' | 'string' | 'operator' | 'bracket' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The text of the token; for strings, the unescaped value. */
  value: string;
  /** Offset of the first character. */
  start: number;
}

const WORD_OPERATORS = new Set([
  'not',
  'in',
  'or',
  'and',
  'matches',
  'contains',
  'startsWith',
  'endsWith',
  'let',
  'if',
  'else',
]);
const SINGLE_OPERATORS = ',;%+-^';
const DOUBLE_FIRST = '&!=*<>';
const LETTER = /[\p{L}_$]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{Nd}_$]/u;
const SPACE = /\s/u;

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
  '?': '?',
};

export function isLetter(character: string): boolean {
  return LETTER.test(character);
}

export function isLetterOrDigit(character: string): boolean {
  return LETTER_OR_DIGIT.test(character);
}

export function tokenize(source: string): Token[] {
  return new Lexer(source).run();
}

/** How a token reads in an error message, as expr-lang writes it: `Operator(",")`, `EOF`. */
export function describeToken(token: Token): string {
  if (token.kind === 'eof') return 'EOF';
  const kind = token.kind[0]?.toUpperCase() + token.kind.slice(1);
  return `${kind}(${JSON.stringify(token.value)})`;
}

class Lexer {
  private position = 0;
  private readonly tokens: Token[] = [];

  constructor(private readonly source: string) {}

  run(): Token[] {
    for (;;) {
      const start = this.position;
      const character = this.peek();
      if (character === '') {
        this.tokens.push({ kind: 'eof', value: '', start: Math.max(0, start - 1) });
        return this.tokens;
      }
      this.position += character.length;
      this.scan(character, start);
    }
  }

  private scan(character: string, start: number): void {
    if (SPACE.test(character)) return;
    if (character === '"' || character === "'") return this.push('string', this.quoted(character), start);
    if (character === '`') return this.push('string', this.raw(), start);
    if ((character === 'b' || character === 'B') && (this.peek() === '"' || this.peek() === "'")) {
      throw this.error('bytes literals are not supported', start);
    }
    if (character >= '0' && character <= '9') return this.number(start);
    if (character === '.') {
      const next = this.peek();
      if (next >= '0' && next <= '9') return this.number(start);
      return this.push('operator', this.accept('.') ? '..' : '.', start);
    }
    if (character === '?') {
      const next = this.peek();
      return this.push('operator', next === '.' || next === '?' ? `?${this.take()}` : '?', start);
    }
    if (character === '/') return this.slash(start);
    if (character === '#') return this.pointer(start);
    if (character === '|') return this.push('operator', this.accept('|') ? '||' : '|', start);
    if (character === ':') return this.push('operator', this.accept(':') ? '::' : ':', start);
    if ('([{)]}'.includes(character)) return this.push('bracket', character, start);
    if (SINGLE_OPERATORS.includes(character)) return this.push('operator', character, start);
    if (DOUBLE_FIRST.includes(character)) {
      const next = this.peek();
      const second = next !== '' && '&=*'.includes(next) ? this.take() : '';
      return this.push('operator', character + second, start);
    }
    if (isLetterOrDigit(character)) return this.word(start);
    throw this.error(`unrecognized character: ${JSON.stringify(character)}`, start);
  }

  private number(start: number): void {
    this.position = start;
    let digits = '0123456789_';
    if (this.accept('0')) {
      if (this.accept('x') || this.accept('X')) digits = '0123456789abcdefABCDEF_';
      else if (this.accept('o') || this.accept('O')) digits = '01234567_';
      else if (this.accept('b') || this.accept('B')) digits = '01_';
    }
    this.acceptRun(digits);
    const beforeDot = this.position;
    if (this.accept('.')) {
      // `1..2` is a range: leave both dots to the operator.
      if (this.peek() === '.') {
        this.position = beforeDot;
        return this.push('number', this.source.slice(start, beforeDot), start);
      }
      this.acceptRun(digits);
    }
    if (this.accept('e') || this.accept('E')) {
      if (!this.accept('+')) this.accept('-');
      this.acceptRun(digits);
    }
    const next = this.peek();
    if (next !== '' && isLetterOrDigit(next)) {
      this.position += next.length;
      const text = this.source.slice(start, this.position);
      throw this.error(`bad number syntax: ${JSON.stringify(text)}`, this.position - 1);
    }
    this.push('number', this.source.slice(start, this.position), start);
  }

  private word(start: number): void {
    for (let next = this.peek(); next !== '' && isLetterOrDigit(next); next = this.peek()) {
      this.position += next.length;
    }
    const text = this.source.slice(start, this.position);
    this.push(WORD_OPERATORS.has(text) ? 'operator' : 'identifier', text, start);
  }

  /** `#`, `#acc`, `#index`: the name right after `#` is an identifier even when it is a keyword. */
  private pointer(start: number): void {
    this.push('operator', '#', start);
    const nameStart = this.position;
    for (let next = this.peek(); next !== '' && isLetterOrDigit(next); next = this.peek()) {
      this.position += next.length;
    }
    if (this.position > nameStart) {
      this.push('identifier', this.source.slice(nameStart, this.position), nameStart);
    }
  }

  private slash(start: number): void {
    if (this.accept('/')) {
      while (this.peek() !== '' && this.peek() !== '\n') this.position += 1;
      return;
    }
    if (this.accept('*')) {
      const end = this.source.indexOf('*/', this.position);
      if (end === -1) throw this.error('unclosed comment', this.source.length - 1);
      this.position = end + 2;
      return;
    }
    this.push('operator', '/', start);
  }

  private quoted(quote: string): string {
    let value = '';
    for (;;) {
      const at = this.position;
      const character = this.take();
      if (character === quote) return value;
      if (character === '' || character === '\n') throw this.error('literal not terminated', at);
      value += character === '\\' ? this.escape(at) : character;
    }
  }

  private escape(at: number): string {
    const character = this.take();
    const simple = SIMPLE_ESCAPES[character];
    if (simple !== undefined) return simple;
    if (character >= '0' && character <= '3') {
      const digits = character + this.take() + this.take();
      if (!/^[0-7]{3}$/.test(digits)) throw this.error('invalid char escape', at);
      return String.fromCodePoint(parseInt(digits, 8));
    }
    if (character === 'u' && this.accept('{')) {
      const end = this.source.indexOf('}', this.position);
      const digits = end === -1 ? '' : this.source.slice(this.position, end);
      if (!/^[0-9a-fA-F]{1,6}$/.test(digits)) throw this.error('invalid char escape', at);
      this.position = end + 1;
      return this.codePoint(digits, at);
    }
    const width = { x: 2, X: 2, u: 4, U: 8 }[character];
    if (width === undefined) throw this.error('invalid char escape', at);
    const digits = this.source.slice(this.position, this.position + width);
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) throw this.error('invalid char escape', at);
    this.position += width;
    return this.codePoint(digits, at);
  }

  private codePoint(hex: string, at: number): string {
    const value = parseInt(hex, 16);
    if (value > 0x10ffff) throw this.error('invalid char escape', at);
    return String.fromCodePoint(value);
  }

  /** A backtick string: no escapes, except that a doubled backtick stands for one. */
  private raw(): string {
    let value = '';
    for (;;) {
      const character = this.take();
      if (character === '') throw this.error('literal not terminated', this.source.length - 1);
      if (character !== '`') value += character;
      else if (this.accept('`')) value += '`';
      else return value.replace(/\r\n?/g, '\n');
    }
  }

  private push(kind: TokenKind, value: string, start: number): void {
    this.tokens.push({ kind, value, start });
  }

  private peek(): string {
    const code = this.source.codePointAt(this.position);
    return code === undefined ? '' : String.fromCodePoint(code);
  }

  private take(): string {
    const character = this.peek();
    this.position += character.length;
    return character;
  }

  private accept(character: string): boolean {
    if (this.source[this.position] !== character) return false;
    this.position += 1;
    return true;
  }

  private acceptRun(characters: string): void {
    while (this.position < this.source.length && characters.includes(this.source[this.position] ?? '')) {
      this.position += 1;
    }
  }

  private error(reason: string, offset: number): ExprSyntaxError {
    return new ExprSyntaxError(reason, this.source, offset);
  }
}
