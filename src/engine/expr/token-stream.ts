// The parser's cursor over the tokens, and the budget every node it builds is checked against:
// a node count (expr-lang's MaxNodes) and the height of the tree, which bounds the recursion of
// compiling and evaluating long left-leaning chains such as `a + a + ... + a`.
import { childrenOf, type Node } from './ast.ts';
import { ExprSyntaxError } from './errors.ts';
import { describeToken, tokenize, type Token, type TokenKind } from './lexer.ts';

/** expr-lang's default node budget (conf.DefaultMaxNodes). */
export const MAX_NODES = 10_000;
export const MAX_HEIGHT = 1000;

export class TokenStream {
  private readonly tokens: Token[];
  private position = 0;
  private nodeCount = 0;
  private readonly heights = new WeakMap<Node, number>();

  constructor(protected readonly source: string) {
    this.tokens = tokenize(source);
  }

  protected get current(): Token {
    return this.tokens[this.position] as Token;
  }

  /** Where the cursor is, to step back after looking one token ahead. */
  protected get index(): number {
    return this.position;
  }

  protected set index(value: number) {
    this.position = value;
  }

  protected next(): void {
    if (this.current.kind === 'eof') throw this.error('unexpected end of expression', this.current.start);
    this.position += 1;
  }

  protected is(kind: TokenKind, value?: string): boolean {
    const token = this.current;
    return token.kind === kind && (value === undefined || token.value === value);
  }

  protected expect(kind: TokenKind, value?: string): void {
    if (!this.is(kind, value)) throw this.unexpected();
    this.next();
  }

  /** Registers a node: counts it against the budget and checks the height of the tree. */
  protected make<T extends Node>(node: T): T {
    this.nodeCount += 1;
    if (this.nodeCount > MAX_NODES) {
      throw this.error(`expression is too large (more than ${MAX_NODES} nodes)`, node.start);
    }
    let height = 1;
    for (const child of childrenOf(node)) height = Math.max(height, (this.heights.get(child) ?? 1) + 1);
    if (height > MAX_HEIGHT) {
      throw this.error(`expression nests too deeply (more than ${MAX_HEIGHT} levels)`, node.start);
    }
    this.heights.set(node, height);
    return node;
  }

  protected unexpected(): ExprSyntaxError {
    return this.error(`unexpected token ${describeToken(this.current)}`, this.current.start);
  }

  protected error(reason: string, offset: number): ExprSyntaxError {
    return new ExprSyntaxError(reason, this.source, offset);
  }
}
