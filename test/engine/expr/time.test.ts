// Dates and durations: the language definition's "Date Functions", expr_test.go's time rows and
// builtin_test.go's date rows. Times in the environment are built with `date` itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExprDuration, ExprTime } from '../../../src/engine/expr/expr.ts';
import { evalErrorTable, evaluate, valueTable } from './helpers.ts';

const time = evaluate('date("2017-10-23T18:30:00Z")');
const ENV = {
  Time: time,
  TimePlusDay: evaluate('date("2017-10-24T18:30:00Z")'),
  Duration: evaluate('duration("24h")'),
  createdAt: evaluate('now() - duration("30m")'),
};

valueTable(
  'expr_test.go time rows',
  [
    ['Time < Time + Duration', true],
    ['Time + Duration > Time', true],
    ['Time == Time', true],
    ['Time >= Time', true],
    ['Time <= Time', true],
    ['Time == Time + Duration', false],
    ['Time != Time', false],
    ['TimePlusDay - Duration == Time', true],
    ['duration("1h") == duration("1h")', true],
    ['TimePlusDay - Time >= duration("24h")', true],
    ['duration("1h") > duration("1m")', true],
    ['duration("1h") < duration("1m")', false],
    ['duration("1h") >= duration("1m")', true],
    ['duration("1h") <= duration("1m")', false],
    ['duration("1h") + duration("1m") == duration("61m")', true],
    ['duration("1h") - duration("1m") == duration("59m")', true],
    ['7 * duration("1h") == duration("7h")', true],
    ['duration("1h") * 7 == duration("7h")', true],
    ['duration("1s") * .5', 5e8],
    ['Time.Sub(Time).String() == "0s"', true],
  ],
  ENV,
);

valueTable(
  'dates',
  [
    ['createdAt - now() < duration("0s")', true],
    ['createdAt + duration("1h") > now()', true],
    ['createdAt > now() - duration("1h")', true],
    ['now() > date("2020-01-01")', true],
    ['now() - now() < duration("1s")', true],
    ['duration("1h").Seconds() == 3600', true],
    ['duration("90m").Hours()', 1.5],
    ['duration("1500ms").Milliseconds()', 1500],
    ['date("2023-08-14").Year() == 2023', true],
    ['date("2023-08-14").Month()', 8],
    ['date("2023-08-14").Day()', 14],
    ['date("2023-08-14").Weekday()', 1],
    ['date("2023-08-14").YearDay()', 226],
    ['date("15:04:05").Hour()', 15],
    ['date("15:04:05").Year()', 0],
    ['date("2023-08-14T00:00:00Z").Unix()', 1691971200],
    ['date("2023-08-14T02:00:00+02:00") == date("2023-08-14T00:00:00Z")', true],
    ['date("2023-08-14T02:00:00.123+02:00").UnixMilli()', 1691971200123],
    ['date("2023-08-14 10:20:30").Format("15h04m05s")', '10h20m30s'],
    ['date("14 Aug 23 10:20 UTC").Format("2006-01-02 15:04")', '2023-08-14 10:20'],
    ['date("Monday, 14-Aug-23 10:20:30 UTC").Minute()', 20],
    ['date("Mon, 14 Aug 2023 10:20:30 GMT").Second()', 30],
    ['date("2006-01-02T15:04:05Z").Format("2006-01-02T15:04:05Z07:00")', '2006-01-02T15:04:05Z'],
    ['date("2006.01.02", "2006.01.02") == date("2006-01-02")', true],
    ['date("Aug 5, 2023 3:04PM", "Jan 2, 2006 3:04PM").Hour()', 15],
    ['date("2023-08-14 00:00:00", "2006-01-02 15:04:05", "Europe/Zurich").UTC().Hour()', 22],
    [
      'date("2023-04-23T00:30:00.000+0100", "2006-01-02T15:04:05-0700", "America/Chicago").Format("2006-01-02")',
      '2023-04-23',
    ],
    [
      'date("2023-04-23T00:30:00", "2006-01-02T15:04:05", "America/Chicago").Format("2006-01-02")',
      '2023-04-23',
    ],
    ['date("2023-04-23", "2006-01-02", "America/Chicago").Format("2006-01-02 -07:00")', '2023-04-23 -05:00'],
    ['date(timezone("Asia/Tokyo"), "2023-01-01 09:00:00").UTC().Hour()', 0],
    ['date("2023-08-14T00:00:00Z").In(timezone("Europe/Zurich")).Hour()', 2],
    ['date("2023-08-14T00:00:00Z").In(timezone("Europe/Zurich")).Format("15:04 -0700")', '02:00 +0200'],
    ['date("2023-01-31T00:00:00Z").AddDate(0, 1, 0).Format("2006-01-02")', '2023-03-03'],
    ['date("2023-08-14T10:47:00Z").Truncate(duration("1h")).Format("15:04")', '10:00'],
    ['date("2023-08-14T10:47:00Z").Round(duration("1h")).Format("15:04")', '11:00'],
    ['date("2023-08-14T10:00:00Z").Before(date("2023-08-14T11:00:00Z"))', true],
    ['date("2023-08-14T10:00:00Z").After(date("2023-08-14T11:00:00Z"))', false],
    ['date("2023-08-14T10:00:00Z").Add(duration("90m")).Format("15:04")', '11:30'],
    ['string(date("2017-10-23T18:30:00Z"))', '2017-10-23 18:30:00 +0000 UTC'],
    ['toJSON(date("2017-10-23T18:30:00.5Z"))', '"2017-10-23T18:30:00.5Z"'],
    ['timezone("UTC").String()', 'UTC'],
    ['timezone("Europe/Moscow").String()', 'Europe/Moscow'],
    ['type(now())', 'time.Time'],
    ['type(duration("1h"))', 'time.Duration'],
  ],
  ENV,
);

valueTable('duration text', [
  ['string(duration("1h"))', '1h0m0s'],
  ['string(duration("90s"))', '1m30s'],
  ['string(duration("1.5s"))', '1.5s'],
  ['string(duration("500ms"))', '500ms'],
  ['string(duration("1us"))', '1µs'],
  ['string(duration("1µs"))', '1µs'],
  ['string(duration("42ns"))', '42ns'],
  ['string(duration("0"))', '0s'],
  ['string(duration("-1h30m"))', '-1h30m0s'],
  ['string(duration("2h45m30.5s"))', '2h45m30.5s'],
  ['string(duration("+3m"))', '3m0s'],
  ['duration(".5h").Minutes()', 30],
  ['int(duration("1ms"))', 1000000],
]);

test('now() is the current instant, in the local zone, and comparable', () => {
  const before = Date.now();
  const now = evaluate('now()');
  assert.ok(now instanceof ExprTime);
  assert.ok(now.epochMilliseconds >= before && now.epochMilliseconds <= Date.now());
  assert.equal(evaluate('now().Year()'), new Date().getFullYear());
  assert.equal(evaluate('now() <= now()'), true);
});

test('a duration is a value of nanoseconds', () => {
  const value = evaluate('duration("1h") + duration("1m")');
  assert.ok(value instanceof ExprDuration);
  assert.equal(value.nanoseconds, 61 * 60e9);
});

evalErrorTable(
  'time errors',
  [
    ['duration("error")', 'time: invalid duration "error"'],
    ['duration("1")', 'time: missing unit in duration "1"'],
    ['duration("1d")', 'time: unknown unit "d" in duration "1d"'],
    ['date("error")', 'invalid date error'],
    ['date("2023-02-30")', 'invalid date 2023-02-30'],
    ['date("2023-02-30", "2006-01-02")', 'day out of range'],
    ['date("x", "2006")', 'cannot parse "x" as "2006"'],
    ['date("2023-01-01x", "2006-01-02")', 'extra text: "x"'],
    ['date(nil)', 'cannot use nil as argument (type string) to call date'],
    ['timezone("Nowhere/City")', 'unknown time zone Nowhere/City'],
    ['date("2023-01-01", "2006-01-02", "Nowhere/City")', 'unknown time zone Nowhere/City'],
    ['now(nil)', 'cannot use nil as argument (type *time.Location) to call now'],
    ['now() + 1', 'invalid operation: time.Time + int'],
    ['now() < 1', 'invalid operation: time.Time < int'],
    ['duration("1h") / 2', 'invalid operation: time.Duration / int'],
    ['now().Foo()', 'type time.Time has no method Foo'],
    ['now().constructor()', 'type time.Time has no method constructor'],
    ['now().Add(1)', 'cannot use int as argument (type time.Duration) to call Add'],
  ],
  ENV,
);
