// Go's reference-time layouts ("2006-01-02 15:04:05"), which `date(text, layout)` and
// `Time.Format(layout)` take. The chunking follows time/format.go's nextStdChunk.
import type { Civil } from './time-value.ts';

export type Chunk =
  | { kind: 'literal'; text: string }
  | { kind: 'field'; field: string }
  | { kind: 'fraction'; digits: number; trim: boolean; separator: string };

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Fields by their first character, longest first, as nextStdChunk tries them. */
const FIELDS: Record<string, string[]> = {
  J: ['January', 'Jan'],
  M: ['Monday', 'Mon', 'MST'],
  '0': ['002', '01', '02', '03', '04', '05', '06'],
  '1': ['15', '1'],
  '2': ['2006', '2'],
  _: ['__2', '_2'],
  '3': ['3'],
  '4': ['4'],
  '5': ['5'],
  P: ['PM'],
  p: ['pm'],
  '-': ['-07:00:00', '-070000', '-07:00', '-0700', '-07'],
  Z: ['Z07:00:00', 'Z070000', 'Z07:00', 'Z0700', 'Z07'],
};

export function layoutChunks(layout: string): Chunk[] {
  const chunks: Chunk[] = [];
  let literal = '';
  const flush = () => {
    if (literal !== '') chunks.push({ kind: 'literal', text: literal });
    literal = '';
  };
  for (let index = 0; index < layout.length;) {
    const character = layout[index] ?? '';
    // `_2006` is a literal underscore before a year, not a space-padded day.
    if (layout.startsWith('_2006', index)) {
      literal += '_';
      index += 1;
      continue;
    }
    const field = FIELDS[character]?.find((candidate) => layout.startsWith(candidate, index));
    if (field !== undefined) {
      flush();
      chunks.push({ kind: 'field', field });
      index += field.length;
      continue;
    }
    const fraction = /^[.,](0+|9+)(?!\d)/.exec(layout.slice(index));
    if (fraction?.[1] !== undefined) {
      flush();
      chunks.push({
        kind: 'fraction',
        digits: fraction[1].length,
        trim: fraction[1].startsWith('9'),
        separator: character,
      });
      index += fraction[0].length;
      continue;
    }
    literal += character;
    index += 1;
  }
  flush();
  return chunks;
}

/** A wall clock as layouts print it: the civil fields and the zone's abbreviation. */
export interface WallClock extends Civil {
  abbreviation: string;
}

export function formatLayout(clock: WallClock, layout: string): string {
  let text = '';
  for (const chunk of layoutChunks(layout)) {
    if (chunk.kind === 'literal') text += chunk.text;
    else if (chunk.kind === 'fraction') text += formatFraction(clock.nanosecond, chunk);
    else text += formatField(clock, chunk.field);
  }
  return text;
}

function formatField(clock: WallClock, field: string): string {
  const hour12 = clock.hour % 12 === 0 ? 12 : clock.hour % 12;
  switch (field) {
    case 'January':
      return MONTHS[clock.month - 1] ?? '';
    case 'Jan':
      return (MONTHS[clock.month - 1] ?? '').slice(0, 3);
    case 'Monday':
      return WEEKDAYS[clock.weekday] ?? '';
    case 'Mon':
      return (WEEKDAYS[clock.weekday] ?? '').slice(0, 3);
    case 'MST':
      return clock.abbreviation;
    case '2006':
      return String(clock.year).padStart(4, '0');
    case '06':
      return pad(clock.year % 100, 2);
    case '01':
      return pad(clock.month, 2);
    case '1':
      return String(clock.month);
    case '02':
      return pad(clock.day, 2);
    case '2':
      return String(clock.day);
    case '_2':
      return String(clock.day).padStart(2, ' ');
    case '002':
      return pad(clock.yearDay, 3);
    case '__2':
      return String(clock.yearDay).padStart(3, ' ');
    case '15':
      return pad(clock.hour, 2);
    case '03':
      return pad(hour12, 2);
    case '3':
      return String(hour12);
    case '04':
      return pad(clock.minute, 2);
    case '4':
      return String(clock.minute);
    case '05':
      return pad(clock.second, 2);
    case '5':
      return String(clock.second);
    case 'PM':
      return clock.hour >= 12 ? 'PM' : 'AM';
    case 'pm':
      return clock.hour >= 12 ? 'pm' : 'am';
    default:
      return formatOffset(clock.offsetMinutes, field);
  }
}

/** `-07:00` style fields; the `Z` forms print `Z` for UTC itself. */
function formatOffset(offsetMinutes: number, field: string): string {
  if (field.startsWith('Z') && offsetMinutes === 0) return 'Z';
  const sign = offsetMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMinutes);
  const hours = pad(Math.floor(minutes / 60), 2);
  const rest = pad(minutes % 60, 2);
  const colon = field.includes(':') ? ':' : '';
  if (field.endsWith('07')) return `${sign}${hours}`;
  if (field.length >= 7 && !field.includes(':')) return `${sign}${hours}${rest}00`;
  if (field.endsWith(':00:00')) return `${sign}${hours}:${rest}:00`;
  return `${sign}${hours}${colon}${rest}`;
}

function formatFraction(nanosecond: number, chunk: { digits: number; trim: boolean; separator: string }) {
  const digits = pad(nanosecond, 9).slice(0, chunk.digits);
  if (!chunk.trim) return chunk.separator + digits;
  const trimmed = digits.replace(/0+$/, '');
  return trimmed === '' ? '' : chunk.separator + trimmed;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
