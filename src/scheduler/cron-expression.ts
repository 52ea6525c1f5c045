// Six-field cron expressions (second minute hour day month weekday, 0 = Sunday; five fields without the
// second are accepted too), checked before
// they reach croner so that a bad one is a 400 naming the field, not a library message.
import { invalid, type AppError } from '../core/errors.ts';

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const FIELDS: readonly Field[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  // 7 is Sunday too, as in most cron dialects.
  { name: 'weekday', min: 0, max: 7, names: WEEKDAYS },
];

const ORDINALS = ['1st', '2nd', '3rd', '4th', '5th', '6th'] as const;

/**
 * Throws a 400 naming the first bad field; returns the six-field expression with its spaces
 * normalized. A standard five-field expression (minute hour day month weekday) is accepted too and
 * runs at second 0: `*\/5 * * * *` becomes `0 *\/5 * * * *`.
 */
export function validateCronExpression(expression: string, label = 'schedule'): string {
  const given = expression.trim().split(/\s+/).filter(Boolean);
  if (given.length !== FIELDS.length && given.length !== FIELDS.length - 1) {
    throw invalid(
      `${label}: expected 6 fields (second minute hour day month weekday) or 5 (minute hour day month weekday), got ${given.length}`,
    );
  }
  // Ordinals in messages count the fields as the user wrote them.
  const skipped = FIELDS.length - given.length;
  const parts = skipped === 1 ? ['0', ...given] : given;
  FIELDS.forEach((field, index) => {
    const fail = (what: string): AppError =>
      invalid(`${label}: field "${field.name}" (${ORDINALS[index - skipped] ?? ''}) ${what}`);
    checkField(parts[index] ?? '', field, fail);
  });
  return parts.join(' ');
}

function checkField(text: string, field: Field, fail: (what: string) => AppError): void {
  if (text === '?' && (field.name === 'day' || field.name === 'weekday')) return;
  for (const item of text.split(',')) {
    const [range = '', step, extra] = item.split('/');
    if (extra !== undefined) throw fail(`"${item}" has more than one step`);
    if (step !== undefined) {
      if (!/^\d+$/.test(step)) throw fail(`"${item}" has a step that is not a number`);
      const size = Number(step);
      if (size < 1 || size > field.max) throw fail(`"${item}" has a step out of range 1-${field.max}`);
    }
    if (range === '*') continue;
    const bounds = range.split('-');
    if (bounds.length > 2 || bounds.some((bound) => bound === '')) {
      throw fail(`"${item}" is not a number, range, list or step`);
    }
    const values = bounds.map((bound) => valueOf(bound, field, fail));
    const [from = 0, to = from] = values;
    if (bounds.length === 2 && from > to) throw fail(`"${item}" is a range whose start is after its end`);
  }
}

function valueOf(text: string, field: Field, fail: (what: string) => AppError): number {
  let value: number;
  if (/^\d+$/.test(text)) value = Number(text);
  else {
    const named = field.names?.indexOf(text.toUpperCase() as never) ?? -1;
    if (named < 0) throw fail(`"${text}" is not a number${field.names ? ' or a name' : ''}`);
    value = field.name === 'month' ? named + 1 : named;
  }
  if (value < field.min || value > field.max) {
    throw fail(`"${text}" is out of range ${field.min}-${field.max}`);
  }
  return value;
}
