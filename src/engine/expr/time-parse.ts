// Go's time.Parse and time.ParseInLocation for reference-time layouts. A zone in the text wins;
// without one the wall clock is read in the given location (UTC for plain `date(text)`).
import { fault } from './errors.ts';
import { layoutChunks, MONTHS, WEEKDAYS, type Chunk } from './time-layout.ts';
import { ExprLocation, ExprTime, fromWallClock, utcMilliseconds } from './time-value.ts';

interface Parsed {
  year: number;
  month: number;
  day: number;
  yearDay: number;
  hour: number;
  minute: number;
  second: number;
  nanosecond: number;
  meridiem: '' | 'am' | 'pm';
  offsetMinutes: number | undefined;
  zone: ExprLocation | undefined;
}

export function parseTime(text: string, layout: string, location: ExprLocation): ExprTime {
  const parsed: Parsed = {
    year: 0,
    month: 1,
    day: 1,
    yearDay: -1,
    hour: 0,
    minute: 0,
    second: 0,
    nanosecond: 0,
    meridiem: '',
    offsetMinutes: undefined,
    zone: undefined,
  };
  const chunks = layoutChunks(layout);
  let rest = text;
  const fail = (element: string) =>
    fault(
      `parsing time ${JSON.stringify(text)} as ${JSON.stringify(layout)}: cannot parse ` +
        `${JSON.stringify(rest)} as ${JSON.stringify(element)}`,
    );
  for (const [index, chunk] of chunks.entries()) {
    const consumed = readChunk(rest, chunk, chunks[index + 1], parsed);
    if (consumed === undefined) {
      throw fail(chunk.kind === 'literal' ? chunk.text : chunk.kind === 'field' ? chunk.field : '.0');
    }
    rest = rest.slice(consumed);
  }
  if (rest !== '') throw fault(`parsing time ${JSON.stringify(text)}: extra text: ${JSON.stringify(rest)}`);
  return build(text, parsed, location);
}

function build(text: string, parsed: Parsed, location: ExprLocation): ExprTime {
  let { hour, month, day } = parsed;
  if (parsed.meridiem === 'pm' && hour < 12) hour += 12;
  if (parsed.meridiem === 'am' && hour === 12) hour = 0;
  if (parsed.yearDay >= 0) {
    const date = new Date(utcMilliseconds(parsed.year, 1, 1, 0, 0, 0) + (parsed.yearDay - 1) * 86_400_000);
    month = date.getUTCMonth() + 1;
    day = date.getUTCDate();
  }
  const outOfRange = (what: string) => fault(`parsing time ${JSON.stringify(text)}: ${what} out of range`);
  if (month < 1 || month > 12) throw outOfRange('month');
  if (day < 1 || day > daysIn(parsed.year, month)) throw outOfRange('day');
  if (hour > 23) throw outOfRange('hour');
  if (parsed.minute > 59) throw outOfRange('minute');
  if (parsed.second > 59) throw outOfRange('second');
  const wall =
    utcMilliseconds(parsed.year, month, day, hour, parsed.minute, parsed.second) + parsed.nanosecond / 1e6;
  if (parsed.zone) return new ExprTime(fromWallClock(wall, parsed.zone), parsed.zone);
  if (parsed.offsetMinutes !== undefined) {
    return new ExprTime(wall - parsed.offsetMinutes * 60_000, ExprLocation.fixed(parsed.offsetMinutes));
  }
  return new ExprTime(fromWallClock(wall, location), location);
}

function daysIn(year: number, month: number): number {
  return new Date(utcMilliseconds(year, month + 1, 0, 0, 0, 0)).getUTCDate();
}

/** How many characters of `text` the chunk takes, or undefined when it does not match. */
function readChunk(text: string, chunk: Chunk, next: Chunk | undefined, parsed: Parsed): number | undefined {
  if (chunk.kind === 'literal') return readLiteral(text, chunk.text);
  if (chunk.kind === 'fraction') {
    const match = chunk.trim ? /^[.,](\d+)/.exec(text) : new RegExp(`^[.,](\\d{${chunk.digits}})`).exec(text);
    if (!match) return chunk.trim ? 0 : undefined;
    parsed.nanosecond = fractionNanoseconds(match[1] ?? '');
    return match[0].length;
  }
  const field = chunk.field;
  const number = (pattern: RegExp, assign: (value: number) => void): number | undefined => {
    const match = pattern.exec(text);
    if (!match) return undefined;
    assign(Number(match[1]));
    return match[0].length;
  };
  switch (field) {
    case '2006':
      return number(/^(\d{4})/, (value) => (parsed.year = value));
    case '06':
      return number(/^(\d{2})/, (value) => (parsed.year = value + (value >= 69 ? 1900 : 2000)));
    case 'January':
    case 'Jan':
      return readName(text, MONTHS, field === 'Jan', (index) => (parsed.month = index + 1));
    case 'Monday':
    case 'Mon':
      return readName(text, WEEKDAYS, field === 'Mon', () => undefined);
    case '01':
    case '02':
    case '03':
    case '04':
      return number(/^(\d{2})/, (value) => assignClock(parsed, field, value));
    case '1':
    case '2':
    case '15':
    case '3':
    case '4':
      return number(/^(\d{1,2})/, (value) => assignClock(parsed, field, value));
    case '05':
    case '5': {
      const read = number(field === '05' ? /^(\d{2})/ : /^(\d{1,2})/, (value) => (parsed.second = value));
      // Go accepts a fractional second after the seconds even when the layout has none.
      if (read === undefined || next?.kind === 'fraction') return read;
      const fraction = /^[.,](\d+)/.exec(text.slice(read));
      if (!fraction) return read;
      parsed.nanosecond = fractionNanoseconds(fraction[1] ?? '');
      return read + fraction[0].length;
    }
    case '_2':
      return number(/^ ?(\d{1,2})/, (value) => (parsed.day = value));
    case '002':
      return number(/^(\d{3})/, (value) => (parsed.yearDay = value));
    case '__2':
      return number(/^ {0,2}(\d{1,3})/, (value) => (parsed.yearDay = value));
    case 'PM':
    case 'pm':
      return readMeridiem(text, field === 'PM', parsed);
    case 'MST':
      return readZoneName(text, parsed);
    default:
      return readOffset(text, field, parsed);
  }
}

function assignClock(parsed: Parsed, field: string, value: number): void {
  if (field === '01' || field === '1') parsed.month = value;
  else if (field === '02' || field === '2') parsed.day = value;
  else if (field === '15' || field === '03' || field === '3') parsed.hour = value;
  else parsed.minute = value;
}

function readLiteral(text: string, literal: string): number | undefined {
  return text.startsWith(literal) ? literal.length : undefined;
}

function readName(
  text: string,
  names: string[],
  short: boolean,
  assign: (index: number) => void,
): number | undefined {
  const lower = text.toLowerCase();
  const index = names.findIndex((name) => lower.startsWith((short ? name.slice(0, 3) : name).toLowerCase()));
  if (index === -1) return undefined;
  assign(index);
  return short ? 3 : (names[index] ?? '').length;
}

function readMeridiem(text: string, upper: boolean, parsed: Parsed): number | undefined {
  const word = text.slice(0, 2);
  const am = upper ? 'AM' : 'am';
  const pm = upper ? 'PM' : 'pm';
  if (word !== am && word !== pm) return undefined;
  parsed.meridiem = word === am ? 'am' : 'pm';
  return 2;
}

function readZoneName(text: string, parsed: Parsed): number | undefined {
  const match = /^(?:UTC|GMT|[A-Z]{3,5})/.exec(text);
  if (!match) return undefined;
  parsed.zone = match[0] === 'UTC' ? ExprLocation.utc : ExprLocation.fixed(0, match[0]);
  return match[0].length;
}

function readOffset(text: string, field: string, parsed: Parsed): number | undefined {
  if (field.startsWith('Z') && text.startsWith('Z')) {
    parsed.zone = ExprLocation.utc;
    return 1;
  }
  const shape = field.slice(1);
  const pattern = {
    '07': /^([+-])(\d{2})/,
    '0700': /^([+-])(\d{2})(\d{2})/,
    '07:00': /^([+-])(\d{2}):(\d{2})/,
    '070000': /^([+-])(\d{2})(\d{2})(\d{2})/,
    '07:00:00': /^([+-])(\d{2}):(\d{2}):(\d{2})/,
  }[shape];
  const match = pattern?.exec(text);
  if (!match) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  parsed.offsetMinutes = match[1] === '-' ? -minutes : minutes;
  return match[0].length;
}

function fractionNanoseconds(digits: string): number {
  return Number(digits.slice(0, 9).padEnd(9, '0'));
}
