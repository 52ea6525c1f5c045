// `now`, `duration`, `date` and `timezone`. Without a layout, `date` tries the layouts expr-lang
// tries, in its order; a zone written in the text wins over the location asked for.
import { parseDuration } from './duration.ts';
import { fault } from './errors.ts';
import { remember, type Builtin, type Frame } from './frame.ts';
import { parseTime } from './time-parse.ts';
import { ExprDuration, ExprLocation, ExprTime } from './time-value.ts';
import { expectString, typeName } from './values.ts';

const DEFAULT_LAYOUTS = [
  '2006-01-02',
  '15:04:05',
  '2006-01-02 15:04:05',
  '2006-01-02T15:04:05Z07:00',
  '02 Jan 06 15:04 MST',
  'Monday, 02-Jan-06 15:04:05 MST',
  'Mon, 02 Jan 2006 15:04:05 MST',
];

/** An IANA zone by name, remembered per compiled expression since building one is slow. */
export function lookupLocation(name: string, frame: Frame): ExprLocation {
  const location = remember(frame.caches.locations, name, () => ExprLocation.named(name));
  if (location === undefined) throw fault(`unknown time zone ${name}`);
  return location;
}

function locationArgument(value: unknown, name: string): ExprLocation {
  if (value instanceof ExprLocation) return value;
  throw fault(`cannot use ${typeName(value)} as argument (type *time.Location) to call ${name}`);
}

export const TIME_BUILTINS: Record<string, Builtin> = {
  now: {
    arity: [0, 1],
    call: (args) => {
      const location = args.length === 0 ? ExprLocation.local : locationArgument(args[0], 'now');
      return new ExprTime(Date.now(), location);
    },
  },
  duration: {
    arity: [1, 1],
    call: ([text]) => new ExprDuration(parseDuration(expectString(text, 'duration'))),
  },
  date: {
    arity: [1, 4],
    call: (args, frame) => {
      let rest = args;
      let location = ExprLocation.utc;
      if (rest[0] instanceof ExprLocation) {
        location = rest[0];
        rest = rest.slice(1);
      }
      if (rest.length === 0 || rest.length > 3) {
        throw fault(`invalid number of arguments for date (expected 1 to 3, got ${rest.length})`);
      }
      const text = expectString(rest[0], 'date');
      if (rest.length === 3) location = lookupLocation(expectString(rest[2], 'date'), frame);
      if (rest.length >= 2) return parseTime(text, expectString(rest[1], 'date'), location);
      for (const layout of DEFAULT_LAYOUTS) {
        try {
          return parseTime(text, layout, location);
        } catch {
          // Try the next layout, as expr-lang does.
        }
      }
      throw fault(`invalid date ${text}`);
    },
  },
  timezone: {
    arity: [1, 1],
    call: ([name], frame) => lookupLocation(expectString(name, 'timezone'), frame),
  },
};
