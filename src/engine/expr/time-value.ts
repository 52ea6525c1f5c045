// The time values of the language, after Go's time package: a Time is an instant shown in a
// location, a Duration a count of nanoseconds, a Location a named rule for UTC offsets.
// Instants keep milliseconds as a float, so resolution is about a microsecond; enough for rules.

/** time.Location: gives the UTC offset, in minutes, in force at an instant. */
export class ExprLocation {
  private constructor(
    readonly name: string,
    private readonly offsetAt: (epochMilliseconds: number) => number,
    private readonly abbreviationAt: (epochMilliseconds: number) => string,
  ) {}

  static readonly utc = new ExprLocation(
    'UTC',
    () => 0,
    () => 'UTC',
  );

  /** The process's zone, as Go's time.Local. */
  static readonly local = new ExprLocation(
    'Local',
    (at) => -new Date(at).getTimezoneOffset(),
    (at) => shortZoneName(undefined, at),
  );

  /** A zone of fixed offset, as Go makes for `+02:00` in a parsed date. */
  static fixed(offsetMinutes: number, name = ''): ExprLocation {
    if (offsetMinutes === 0 && (name === '' || name === 'UTC')) return ExprLocation.utc;
    return new ExprLocation(
      name,
      () => offsetMinutes,
      () => name || numericZone(offsetMinutes),
    );
  }

  /** An IANA zone (`Europe/Zurich`), or undefined when the runtime does not know the name. */
  static named(name: string): ExprLocation | undefined {
    if (name === '' || name === 'UTC') return ExprLocation.utc;
    if (name === 'Local') return ExprLocation.local;
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return undefined;
    }
    return new ExprLocation(
      name,
      (at) => intlOffset(format, at),
      (at) => shortZoneName(name, at),
    );
  }

  offsetMinutes(epochMilliseconds: number): number {
    return this.offsetAt(epochMilliseconds);
  }

  abbreviation(epochMilliseconds: number): string {
    return this.abbreviationAt(epochMilliseconds);
  }
}

export class ExprDuration {
  constructor(readonly nanoseconds: number) {}
}

export class ExprTime {
  constructor(
    readonly epochMilliseconds: number,
    readonly location: ExprLocation,
  ) {}

  in(location: ExprLocation): ExprTime {
    return new ExprTime(this.epochMilliseconds, location);
  }

  plus(duration: ExprDuration): ExprTime {
    return new ExprTime(this.epochMilliseconds + duration.nanoseconds / 1e6, this.location);
  }

  minus(other: ExprTime): ExprDuration {
    return new ExprDuration(Math.round((this.epochMilliseconds - other.epochMilliseconds) * 1e6));
  }
}

/** The wall clock of a time in its location. */
export interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanosecond: number;
  /** 0 is Sunday, as Go's time.Weekday. */
  weekday: number;
  yearDay: number;
  offsetMinutes: number;
}

export function civil(time: ExprTime): Civil {
  const at = time.epochMilliseconds;
  const offsetMinutes = time.location.offsetMinutes(at);
  const wholeMilliseconds = Math.floor(at);
  const wall = new Date(wholeMilliseconds + offsetMinutes * 60_000);
  const year = wall.getUTCFullYear();
  const startOfYear = utcMilliseconds(year, 1, 1, 0, 0, 0);
  const dayStart = utcMilliseconds(year, wall.getUTCMonth() + 1, wall.getUTCDate(), 0, 0, 0);
  const nanosecond = Math.min(999_999_999, Math.round((at - Math.floor(at / 1000) * 1000) * 1e6));
  return {
    year,
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    nanosecond,
    weekday: wall.getUTCDay(),
    yearDay: Math.round((dayStart - startOfYear) / 86_400_000) + 1,
    offsetMinutes,
  };
}

/** Epoch milliseconds of a UTC wall clock; unlike Date.UTC, years 0-99 stay as written. */
export function utcMilliseconds(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** The instant at which a wall clock reads `wall` in `location` (the earlier one in a DST overlap). */
export function fromWallClock(wallMilliseconds: number, location: ExprLocation): number {
  let guess = wallMilliseconds - location.offsetMinutes(wallMilliseconds) * 60_000;
  guess = wallMilliseconds - location.offsetMinutes(guess) * 60_000;
  return guess;
}

/** `+0530`, as Go prints a zone that has no name. */
function numericZone(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(minutes / 60))}${pad(minutes % 60)}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

function intlOffset(format: Intl.DateTimeFormat, at: number): number {
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(at)) parts[part.type] = Number(part.value);
  const wall = utcMilliseconds(
    parts['year'] ?? 1970,
    parts['month'] ?? 1,
    parts['day'] ?? 1,
    (parts['hour'] ?? 0) % 24,
    parts['minute'] ?? 0,
    parts['second'] ?? 0,
  );
  return Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000);
}

/** `CET`, `EST`...; Intl writes zones without a common abbreviation as `GMT+2`, Go as `+02`. */
function shortZoneName(timeZone: string | undefined, at: number): string {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZoneName: 'short', ...(timeZone ? { timeZone } : {}) })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'UTC';
  const numeric = /^(?:GMT|UTC)([+-])(\d{1,2})(?::(\d{2}))?$/.exec(name);
  if (!numeric) return name;
  return `${numeric[1]}${(numeric[2] ?? '').padStart(2, '0')}${numeric[3] ?? ''}`;
}
