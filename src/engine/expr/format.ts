// Text of values: `string(v)` prints as Go's `%v` does, `toJSON(v)` as Go's json.MarshalIndent
// (sorted keys, two-space indent, HTML characters escaped), so outputs match RuleGo's.
import { formatDuration } from './duration.ts';
import { fault } from './errors.ts';
import { formatLayout } from './time-layout.ts';
import { civil, ExprDuration, ExprLocation, ExprTime } from './time-value.ts';
import { isMap, typeName } from './values.ts';

const MAX_DEPTH = 1000;
export const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00';
const TIME_STRING = '2006-01-02 15:04:05.999999999 -0700 MST';

/** Go's `%v`. Integral numbers print as integers; others as Go prints a float64. */
export function formatValue(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw fault('recursion depth exceeded');
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((item) => formatValue(item, depth + 1)).join(' ')}]`;
  if (value instanceof ExprTime) return formatTime(value, TIME_STRING);
  if (value instanceof ExprDuration) return formatDuration(value.nanoseconds);
  if (value instanceof ExprLocation) return value.name;
  if (isMap(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${formatValue(value[key], depth + 1)}`);
    return `map[${entries.join(' ')}]`;
  }
  return typeName(value);
}

export function formatTime(time: ExprTime, layout: string): string {
  const clock = civil(time);
  return formatLayout({ ...clock, abbreviation: time.location.abbreviation(time.epochMilliseconds) }, layout);
}

/** Go's `%v` of a float64 (shortest `%g`): exponent form below 1e-4 and from 1e6 up. */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(value);
  const sign = exponent < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** Go's json.MarshalIndent(value, "", "  "). */
export function toJson(value: unknown, indent = '', depth = 0): string {
  if (depth > MAX_DEPTH) throw fault('recursion depth exceeded');
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw fault(`json: unsupported value: ${formatNumber(value)}`);
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return quoteJson(value);
  if (value instanceof ExprTime) return quoteJson(formatTime(value, RFC3339_NANO));
  if (value instanceof ExprDuration) return JSON.stringify(value.nanoseconds);
  if (value instanceof ExprLocation) return '{}';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => inner + toJson(item, inner, depth + 1));
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (isMap(value)) {
    const keys = Object.keys(value).sort();
    if (keys.length === 0) return '{}';
    const entries = keys.map((key) => `${inner}${quoteJson(key)}: ${toJson(value[key], inner, depth + 1)}`);
    return `{\n${entries.join(',\n')}\n${indent}}`;
  }
  throw fault(`json: unsupported type: ${typeName(value)}`);
}

function quoteJson(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (character) => {
    return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
