// FireTimes keeps croner's answers per schedule (the last span asked about, and the fire following
// each fire time): its answers must be croner's own, whatever order times are asked in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cron } from 'croner';
import { FireTimes } from '../../src/scheduler/cron-trigger.ts';

const croner = (schedule: string, timeZone: string | undefined, after: number): number | undefined =>
  new Cron(schedule, { paused: true, ...(timeZone ? { timezone: timeZone } : {}) })
    .nextRun(new Date(after))
    ?.getTime();

const SCHEDULES = ['* * * * * *', '*/7 * * * * *', '0 30 2 * * *', '15 * * * *', '0 0 0 1 1 *'];
const ZONES = [undefined, 'UTC', 'Europe/Berlin', 'America/New_York'];

describe('cron fire times', () => {
  it('answer as croner does for times asked out of order, across a daylight saving change', () => {
    const times = new FireTimes();
    // Around the end of summer time in Europe and the USA (late October, early November 2026).
    let at = Date.parse('2026-10-24T22:00:00Z');
    let seed = 7;
    const random = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let ask = 0; ask < 5_000; ask++) {
      const schedule = SCHEDULES[ask % SCHEDULES.length] as string;
      const zone = ZONES[Math.floor(ask / 7) % ZONES.length];
      at += Math.floor(random() * 4000) - (random() < 0.3 ? 3000 : 0);
      if (random() < 0.002) at += 6 * 3_600_000;
      assert.equal(times.next(schedule, zone, at), croner(schedule, zone, at), `${schedule} ${zone} ${at}`);
    }
  });

  it('answer as croner does when walked from fire to fire, twice over the same fires', () => {
    const times = new FireTimes();
    for (const schedule of SCHEDULES)
      for (const zone of ZONES)
        for (let walk = 0; walk < 2; walk++) {
          let at: number | undefined = Date.parse('2026-03-28T22:00:00Z') + walk * 333;
          for (let step = 0; step < 200 && at !== undefined; step++) {
            const next = times.next(schedule, zone, at);
            assert.equal(next, croner(schedule, zone, at), `${schedule} ${zone} ${at}`);
            at = next;
          }
        }
  });
});
