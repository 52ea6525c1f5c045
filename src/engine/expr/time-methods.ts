// Methods of times, durations and locations, named as in Go (`now().Year()`,
// `duration("90m").Hours()`). These are the only methods an expression can call: data from the
// environment has none, so no JS function is ever reachable.
import { formatDuration } from './duration.ts';
import { fault } from './errors.ts';
import { formatTime } from './format.ts';
import { civil, ExprDuration, ExprLocation, ExprTime, fromWallClock, utcMilliseconds } from './time-value.ts';
import { expectString, toInteger, typeName } from './values.ts';

/** Milliseconds from Go's zero time (year 1) to the Unix epoch, for Truncate and Round. */
const ZERO_TIME_OFFSET_MS = 62_135_596_800_000;

type Method<T> = (receiver: T, args: unknown[]) => unknown;

function durationArgument(value: unknown, method: string): ExprDuration {
  if (value instanceof ExprDuration) return value;
  throw fault(`cannot use ${typeName(value)} as argument (type time.Duration) to call ${method}`);
}

function timeArgument(value: unknown, method: string): ExprTime {
  if (value instanceof ExprTime) return value;
  throw fault(`cannot use ${typeName(value)} as argument (type time.Time) to call ${method}`);
}

/** Go's Truncate and Round on a duration multiple, measured from the zero time. */
function roundTime(time: ExprTime, step: ExprDuration, mode: 'truncate' | 'round'): ExprTime {
  const stepMs = step.nanoseconds / 1e6;
  if (stepMs <= 0) return time;
  const since = time.epochMilliseconds + ZERO_TIME_OFFSET_MS;
  const remainder = since % stepMs;
  const down = time.epochMilliseconds - remainder;
  const up = mode === 'round' && remainder * 2 >= stepMs;
  return new ExprTime(up ? down + stepMs : down, time.location);
}

function roundDuration(duration: ExprDuration, step: ExprDuration, mode: 'truncate' | 'round'): ExprDuration {
  const unit = step.nanoseconds;
  if (unit <= 0) return duration;
  const value = duration.nanoseconds;
  const down = value - (value % unit);
  if (mode === 'truncate') return new ExprDuration(down);
  const remainder = Math.abs(value % unit);
  return new ExprDuration(remainder * 2 >= unit ? down + Math.sign(value || 1) * unit : down);
}

const TIME_METHODS: Record<string, Method<ExprTime>> = {
  Year: (time) => civil(time).year,
  Month: (time) => civil(time).month,
  Day: (time) => civil(time).day,
  Hour: (time) => civil(time).hour,
  Minute: (time) => civil(time).minute,
  Second: (time) => civil(time).second,
  Nanosecond: (time) => civil(time).nanosecond,
  Weekday: (time) => civil(time).weekday,
  YearDay: (time) => civil(time).yearDay,
  Unix: (time) => Math.floor(time.epochMilliseconds / 1000),
  UnixMilli: (time) => Math.floor(time.epochMilliseconds),
  UnixMicro: (time) => Math.floor(time.epochMilliseconds * 1000),
  UnixNano: (time) => Math.round(time.epochMilliseconds * 1e6),
  Format: (time, [layout]) => formatTime(time, expectString(layout, 'Format')),
  String: (time) => formatTime(time, '2006-01-02 15:04:05.999999999 -0700 MST'),
  UTC: (time) => time.in(ExprLocation.utc),
  Local: (time) => time.in(ExprLocation.local),
  In: (time, [location]) => {
    if (location instanceof ExprLocation) return time.in(location);
    throw fault(`cannot use ${typeName(location)} as argument (type *time.Location) to call In`);
  },
  Location: (time) => time.location,
  Add: (time, [duration]) => time.plus(durationArgument(duration, 'Add')),
  Sub: (time, [other]) => time.minus(timeArgument(other, 'Sub')),
  AddDate: (time, [years, months, days]) => {
    const clock = civil(time);
    const wall =
      utcMilliseconds(
        clock.year + toInteger(years, 'AddDate'),
        clock.month + toInteger(months, 'AddDate'),
        clock.day + toInteger(days, 'AddDate'),
        clock.hour,
        clock.minute,
        clock.second,
      ) +
      clock.nanosecond / 1e6;
    return new ExprTime(fromWallClock(wall, time.location), time.location);
  },
  Before: (time, [other]) => time.epochMilliseconds < timeArgument(other, 'Before').epochMilliseconds,
  After: (time, [other]) => time.epochMilliseconds > timeArgument(other, 'After').epochMilliseconds,
  Equal: (time, [other]) => time.epochMilliseconds === timeArgument(other, 'Equal').epochMilliseconds,
  Compare: (time, [other]) =>
    Math.sign(time.epochMilliseconds - timeArgument(other, 'Compare').epochMilliseconds),
  IsZero: (time) => time.epochMilliseconds === -ZERO_TIME_OFFSET_MS,
  Truncate: (time, [step]) => roundTime(time, durationArgument(step, 'Truncate'), 'truncate'),
  Round: (time, [step]) => roundTime(time, durationArgument(step, 'Round'), 'round'),
};

const DURATION_METHODS: Record<string, Method<ExprDuration>> = {
  Hours: (duration) => duration.nanoseconds / 3600e9,
  Minutes: (duration) => duration.nanoseconds / 60e9,
  Seconds: (duration) => duration.nanoseconds / 1e9,
  Milliseconds: (duration) => Math.trunc(duration.nanoseconds / 1e6),
  Microseconds: (duration) => Math.trunc(duration.nanoseconds / 1e3),
  Nanoseconds: (duration) => duration.nanoseconds,
  String: (duration) => formatDuration(duration.nanoseconds),
  Abs: (duration) => new ExprDuration(Math.abs(duration.nanoseconds)),
  Truncate: (duration, [step]) => roundDuration(duration, durationArgument(step, 'Truncate'), 'truncate'),
  Round: (duration, [step]) => roundDuration(duration, durationArgument(step, 'Round'), 'round'),
};

const LOCATION_METHODS: Record<string, Method<ExprLocation>> = {
  String: (location) => location.name,
};

/** Looks a method up by the receiver's kind; own-property lookups only, so `constructor` fails. */
function find<T>(methods: Record<string, Method<T>>, name: string): Method<T> | undefined {
  return Object.hasOwn(methods, name) ? methods[name] : undefined;
}

export function callMethod(receiver: unknown, name: string, args: unknown[]): unknown {
  if (receiver instanceof ExprTime) {
    const method = find(TIME_METHODS, name);
    if (method) return method(receiver, args);
  } else if (receiver instanceof ExprDuration) {
    const method = find(DURATION_METHODS, name);
    if (method) return method(receiver, args);
  } else if (receiver instanceof ExprLocation) {
    const method = find(LOCATION_METHODS, name);
    if (method) return method(receiver, args);
  }
  throw fault(`type ${typeName(receiver)} has no method ${name}`);
}
