// Errors of the expression language. Both kinds carry the short reason and where in the source it
// happened; the message repeats them in expr-lang's own layout (`reason (line:column)` and a caret
// under the source line), so a chain author sees the same text RuleGo would show.

export interface SourcePosition {
  /** Offset into the source, in UTF-16 code units. */
  offset: number;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
}

export class ExprError extends Error {
  /** The message without the position and snippet. */
  readonly reason: string;
  readonly position: SourcePosition;

  constructor(reason: string, source: string, offset: number, options?: { cause?: unknown }) {
    const { position, snippet } = locate(source, offset);
    super(`${reason} (${position.line}:${position.column})${snippet}`, options);
    this.name = 'ExprError';
    this.reason = reason;
    this.position = position;
  }
}

/** The source is not a valid expression; thrown by `compileExpression`. */
export class ExprSyntaxError extends ExprError {
  constructor(reason: string, source: string, offset: number) {
    super(reason, source, offset);
    this.name = 'ExprSyntaxError';
  }
}

/** Evaluation failed for this environment; thrown by `CompiledExpression.evaluate`. */
export class ExprEvalError extends ExprError {
  constructor(reason: string, source: string, offset: number, options?: { cause?: unknown }) {
    super(reason, source, offset, options);
    this.name = 'ExprEvalError';
  }
}

/**
 * A runtime fault without a position. Operations throw it; the evaluator adds the position of the
 * node being evaluated, so helpers need not know about the source.
 */
export class Fault extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'Fault';
  }
}

export function fault(reason: string): Fault {
  return new Fault(reason);
}

function locate(source: string, offset: number): { position: SourcePosition; snippet: string } {
  const at = Math.max(0, Math.min(offset, source.length));
  const lineStart = source.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = source.indexOf('\n', at);
  const text = source.slice(lineStart, lineEnd === -1 ? source.length : lineEnd);
  let line = 1;
  for (let index = 0; index < lineStart; index += 1) if (source.charCodeAt(index) === 10) line += 1;
  const column = at - lineStart;
  const snippet = text === '' ? '' : `\n | ${text.replaceAll('\t', ' ')}\n | ${'.'.repeat(column)}^`;
  return { position: { offset: at, line, column: column + 1 }, snippet };
}
