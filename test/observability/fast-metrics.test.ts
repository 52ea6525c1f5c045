// The service's counters, gauges and histograms are kept in plain structures and handed to
// prom-client at scrape time: the exposition must be exactly what prom-client writes when it is
// given the same calls itself (series order, label order, summed values, bucket counts, the zero
// series of families without labels), scrape after scrape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FastCounter, FastGauge, FastHistogram } from '../../src/observability/fast-metrics.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];

/** A small deterministic generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function families(registry: Registry, fast: boolean) {
  const registers = [registry];
  const options = <L extends string>(name: string, labelNames: L[]) => ({
    name,
    help: `help of ${name}`,
    labelNames,
    registers,
  });
  return fast
    ? {
        counter: new FastCounter(options('calls_total', ['kind', 'outcome'])),
        plain: new FastCounter(options('plain_total', [])),
        gauge: new FastGauge(options('in_flight', ['channel'])),
        histogram: new FastHistogram({ ...options('duration_seconds', ['kind']), buckets: BUCKETS }),
        bare: new FastHistogram({ ...options('lateness_seconds', []), buckets: BUCKETS }),
        untouched: new FastHistogram({ ...options('untouched_seconds', ['kind']), buckets: BUCKETS }),
      }
    : {
        counter: new Counter(options('calls_total', ['kind', 'outcome'])),
        plain: new Counter(options('plain_total', [])),
        gauge: new Gauge(options('in_flight', ['channel'])),
        histogram: new Histogram({ ...options('duration_seconds', ['kind']), buckets: BUCKETS }),
        bare: new Histogram({ ...options('lateness_seconds', []), buckets: BUCKETS }),
        untouched: new Histogram({ ...options('untouched_seconds', ['kind']), buckets: BUCKETS }),
      };
}

describe('metrics counted outside prom-client', () => {
  it('scrape exactly as prom-client does for the same calls, scrape after scrape', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const fast = families(ours, true);
    const plain = families(theirs, false);
    const next = random(4711);
    const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)] as T;
    for (let scrape = 0; scrape < 4; scrape++) {
      for (let index = 0; index < 500; index++) {
        const kind = pick(['a', 'b', 'c', 'with "quote"', 'line\nbreak']);
        const outcome = pick(['success', 'failure']);
        // Keys in either order: the first call's object decides how the series' labels are written.
        const labels = next() < 0.5 ? { kind, outcome } : { outcome, kind };
        const amount = pick([1, 0, 2.5, 0.1, 7]);
        const seconds = pick([0, 0.0005, 0.001, 0.05, 0.3333, 1, 9.99, 10, 42]) * (1 + next());
        const channel = pick(['api', 'cron', 'telegram']);
        for (const set of [fast, plain]) {
          set.counter.inc(labels, amount);
          if (index % 7 === 0) set.plain.inc();
          if (index % 3 === 0) set.gauge.inc({ channel });
          if (index % 5 === 0) set.gauge.dec({ channel });
          set.histogram.observe({ kind }, seconds);
          if (index % 11 === 0) set.bare.observe(seconds);
        }
      }
      assert.equal(await ours.metrics(), await theirs.metrics(), `scrape ${scrape + 1}`);
    }
  });

  it('a family nobody touched scrapes as prom-client writes it', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    families(ours, true);
    families(theirs, false);
    const text = await ours.metrics();
    assert.equal(text, await theirs.metrics());
    // The families without labels show their zero series from the start.
    assert.match(text, /^plain_total 0$/mu);
    assert.match(text, /^lateness_seconds_count 0$/mu);
  });

  it('refuses the values prom-client refuses, and takes those it takes', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const fast = families(ours, true);
    const plain = families(theirs, false);
    const labels = { kind: 'a', outcome: 'success' };
    const calls: Array<[string, (set: typeof fast | typeof plain) => void]> = [
      ['counter down', (set) => set.counter.inc(labels, -1)],
      ['counter Infinity', (set) => set.counter.inc(labels, Number.POSITIVE_INFINITY)],
      ['counter NaN', (set) => set.counter.inc(labels, Number.NaN)],
      ['gauge NaN', (set) => set.gauge.inc({ channel: 'api' }, Number.NaN)],
      ['gauge text', (set) => set.gauge.inc({ channel: 'cron' }, '1' as unknown as number)],
      ['histogram NaN', (set) => set.histogram.observe({ kind: 'a' }, Number.NaN)],
      ['histogram Infinity', (set) => set.histogram.observe({ kind: 'b' }, Number.POSITIVE_INFINITY)],
    ];
    for (const [what, call] of calls) {
      const outcome = (set: typeof fast | typeof plain) => {
        try {
          call(set);
          return 'taken';
        } catch (error) {
          return (error as Error).message;
        }
      };
      assert.equal(outcome(fast), outcome(plain), what);
    }
    assert.equal(await ours.metrics(), await theirs.metrics());
  });
});
