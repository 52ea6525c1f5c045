// Number literals as expr-lang reads them: `_` separators, 0x/0o/0b integers, decimal integers
// (a leading zero is not octal), and floats whenever a `.` or an exponent appears.

export type NumberLiteral = { type: 'integer'; value: number } | { type: 'float'; value: number };

const MAX_INT64 = 2n ** 63n - 1n;

/** The literal, or the reason it is invalid. */
export function parseNumber(text: string): NumberLiteral | string {
  const value = text.replaceAll('_', '');
  const lower = value.toLowerCase();
  if (lower.startsWith('0x')) return integer(value, 'hex', /^0x[0-9a-f]+$/);
  if (lower.includes('.') || lower.includes('e')) {
    const number = /^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(lower) ? Number(value) : NaN;
    if (Number.isNaN(number)) return `invalid float literal: ${JSON.stringify(text)}`;
    if (!Number.isFinite(number)) return 'float literal is too large';
    return { type: 'float', value: number };
  }
  if (lower.startsWith('0b')) return integer(value, 'binary', /^0b[01]+$/);
  if (lower.startsWith('0o')) return integer(value, 'octal', /^0o[0-7]+$/);
  return integer(value, 'integer', /^\d+$/);
}

function integer(value: string, kind: string, pattern: RegExp): NumberLiteral | string {
  if (!pattern.test(value.toLowerCase())) return `invalid ${kind} literal: ${JSON.stringify(value)}`;
  const big = BigInt(value.toLowerCase());
  if (big > MAX_INT64) return 'integer literal is too large';
  return { type: 'integer', value: Number(big) };
}
