// Type and conversion builtins: `type`, `int`, `float`, `string`, `toJSON`, `fromJSON`.
import { fault } from './errors.ts';
import { formatValue, toJson } from './format.ts';
import type { Builtin } from './frame.ts';
import { ExprDuration } from './time-value.ts';
import { typeName } from './values.ts';

const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export const CONVERT_BUILTINS: Record<string, Builtin> = {
  type: { arity: [1, 1], call: ([value]) => typeName(value) },
  int: {
    arity: [1, 1],
    call: ([value]) => {
      if (typeof value === 'number') return Math.trunc(value);
      if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) return Number(value);
      if (value instanceof ExprDuration) return value.nanoseconds;
      throw fault(`invalid operation: int(${describe(value)})`);
    },
  },
  float: {
    arity: [1, 1],
    call: ([value]) => {
      if (typeof value === 'number') return value;
      if (typeof value === 'string') {
        const text = value.trim() === value ? value : '';
        if (FLOAT_TEXT.test(text)) return Number(text);
        if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
        if (/^nan$/i.test(text)) return NaN;
      }
      throw fault(`invalid operation: float(${describe(value)})`);
    },
  },
  string: { arity: [1, 1], call: ([value]) => formatValue(value) },
  toJSON: { arity: [1, 1], call: ([value]) => toJson(value) },
  fromJSON: {
    arity: [1, 1],
    call: ([value]) => {
      if (typeof value !== 'string') {
        throw fault(`cannot use ${typeName(value)} as argument (type string) to call fromJSON`);
      }
      try {
        return JSON.parse(value, (_key, item: unknown) => {
          if (typeof item === 'number' && !Number.isFinite(item)) {
            throw fault(`json: cannot unmarshal number into a float: out of range`);
          }
          return item;
        }) as unknown;
      } catch (error) {
        throw fault(
          error instanceof SyntaxError ? `invalid JSON: ${error.message}` : (error as Error).message,
        );
      }
    },
  },
};

/** How a failed conversion names its input: the text itself for strings, else the type. */
function describe(value: unknown): string {
  return typeof value === 'string' ? value : typeName(value);
}
