// Counters, histograms and gauges counted in plain structures on the hot path and handed to
// prom-client only when /metrics is scraped (its `collect` callbacks). prom-client validates and
// hashes the labels of every inc and observe (validateLabel, hashObject, setValueDelta: about 4% of
// a chat turn's CPU, profiled); here a series is found by its label values joined in the family's
// label order, and the labels object is never inspected beyond that.
//
// The exposition is what prom-client writes for the same calls: series in the order they were
// first touched, each with the labels object of its first call, values summed in the same order
// (test/observability/fast-metrics.test.ts compares the two texts).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

type LabelValues<L extends string> = Partial<Record<L, string | number>>;

interface Series<L extends string> {
  labels: LabelValues<L>;
  value: number;
}

interface HistogramSeries<L extends string> {
  labels: LabelValues<L>;
  /** Observations per bucket, not cumulative; past the last bound they are only in `count`. */
  buckets: number[];
  sum: number;
  count: number;
}

const NO_LABELS: object = Object.freeze({});

/** The key of a series: its label values in the family's order. */
function seriesKey(names: readonly string[], labels: Record<string, unknown>): string {
  if (names.length === 1) return String(labels[names[0] as string]);
  let key = '';
  for (let index = 0; index < names.length; index++)
    key +=
      index === 0
        ? String(labels[names[index] as string])
        : `\u0001${String(labels[names[index] as string])}`;
  return key;
}

// The values each kind of family refuses are prom-client's own: a counter refuses Infinity and going
// down (NaN passes, as it does there), a gauge anything not a number, a histogram anything not finite.
function notANumber(value: unknown, what = 'Value'): TypeError {
  return new TypeError(`${what} is not a valid number: ${String(value)}`);
}

interface FamilyOptions<L extends string> {
  name: string;
  help: string;
  labelNames: L[];
  registers: Registry[];
}

export class FastCounter<L extends string> {
  private readonly series = new Map<string, Series<L>>();
  private readonly names: readonly string[];

  constructor(options: FamilyOptions<L>) {
    this.names = options.labelNames;
    const series = this.series;
    new Counter<L>({
      ...options,
      collect() {
        this.reset();
        for (const entry of series.values()) this.inc(entry.labels, entry.value);
      },
    });
  }

  inc(labels: LabelValues<L> = NO_LABELS as LabelValues<L>, value = 1): void {
    if (value && !Number.isFinite(value)) throw notANumber(value);
    if (value < 0) throw new Error('It is not possible to decrease a counter');
    const key = seriesKey(this.names, labels);
    const entry = this.series.get(key);
    if (entry) entry.value += value;
    else this.series.set(key, { labels, value });
  }
}

export class FastGauge<L extends string> {
  private readonly series = new Map<string, Series<L>>();
  private readonly names: readonly string[];

  constructor(options: FamilyOptions<L>) {
    this.names = options.labelNames;
    const series = this.series;
    new Gauge<L>({
      ...options,
      collect() {
        this.reset();
        for (const entry of series.values()) this.set(entry.labels, entry.value);
      },
    });
  }

  inc(labels: LabelValues<L>, value = 1): void {
    if (typeof value !== 'number') throw notANumber(value, 'Delta');
    const key = seriesKey(this.names, labels);
    const entry = this.series.get(key);
    if (entry) entry.value += value;
    else this.series.set(key, { labels, value });
  }

  dec(labels: LabelValues<L>, value = 1): void {
    this.inc(labels, -value);
  }
}

/** The shape prom-client 15 keeps a histogram's series in (written at scrape time only). */
interface PromHistogramEntry {
  labels: object;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

export class FastHistogram<L extends string> {
  private readonly series = new Map<string, HistogramSeries<L>>();
  private readonly names: readonly string[];
  private readonly bounds: readonly number[];

  constructor(options: FamilyOptions<L> & { buckets: number[] }) {
    this.names = options.labelNames;
    this.bounds = [...options.buckets];
    // prom-client shows a histogram without labels from the start, all zero.
    if (this.names.length === 0)
      this.series.set('', {
        labels: NO_LABELS as LabelValues<L>,
        buckets: this.bounds.map(() => 0),
        sum: 0,
        count: 0,
      });
    const { series, bounds } = this;
    new Histogram<L>({
      ...options,
      collect() {
        this.reset();
        const byLabels = new Map<object, HistogramSeries<L>>();
        for (const entry of series.values()) {
          this.zero(entry.labels as Partial<Record<L, string | number>>);
          byLabels.set(entry.labels, entry);
        }
        // zero() made one entry per series, holding the very labels object it was given.
        const entries = (this as unknown as { hashMap: Record<string, PromHistogramEntry> }).hashMap;
        for (const entry of Object.values(entries)) {
          const ours = byLabels.get(entry.labels);
          if (!ours) continue;
          for (let index = 0; index < bounds.length; index++)
            entry.bucketValues[bounds[index] as number] = ours.buckets[index] as number;
          entry.sum = ours.sum;
          entry.count = ours.count;
        }
      },
    });
  }

  observe(labels: LabelValues<L> | number, value?: number): void {
    const own = typeof labels === 'number' ? (NO_LABELS as LabelValues<L>) : labels;
    const observed = typeof labels === 'number' ? labels : (value as number);
    if (!Number.isFinite(observed)) throw notANumber(observed);
    const key = seriesKey(this.names, own);
    const entry = this.series.get(key) ?? this.add(key, own);
    const { bounds } = this;
    for (let index = 0; index < bounds.length; index++) {
      if (observed <= (bounds[index] as number)) {
        (entry.buckets[index] as number) += 1;
        break;
      }
    }
    entry.sum += observed;
    entry.count += 1;
  }

  private add(key: string, labels: LabelValues<L>): HistogramSeries<L> {
    const entry = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
    this.series.set(key, entry);
    return entry;
  }
}
