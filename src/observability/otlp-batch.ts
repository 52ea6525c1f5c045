// The span processor of our traces: each span is encoded to OTLP/JSON the moment it ends and only
// that string waits for the batch, sent by OtlpHttpJsonExporter (otlp-exporter.ts). The SDK's
// BatchSpanProcessor keeps the span objects themselves until their batch is sent; in a busy server
// they outlive a young-generation collection or two and are copied and promoted into the old
// generation before they die, where a string of the span is one flat object to copy.
//
// Otherwise it batches as BatchSpanProcessor does: a batch goes when `maxExportBatchSize` spans are
// waiting or `scheduledDelayMillis` after the first of them; at most `maxConcurrentExports` requests
// are in flight and past `maxQueueSize` waiting spans new ones are dropped (a collector that is
// down or slow never makes the process hold more); forceFlush and shutdown send everything.
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { OtlpHttpJsonExporter } from './otlp-exporter.ts';
import { OtlpJsonEncoder } from './otlp-json.ts';

export interface OtlpBatchOptions {
  exporter: OtlpHttpJsonExporter;
  /** Longest wait of an ended span before its batch is sent, in ms (default 1000). */
  scheduledDelayMillis?: number;
  /** Spans per request at most (default 512). */
  maxExportBatchSize?: number;
  /** Spans waiting at most; later ones are dropped while the queue is full (default 4096). */
  maxQueueSize?: number;
  /** Requests in flight at most (default 2). */
  maxConcurrentExports?: number;
  /** A batch that could not be sent (after the exporter's own retries). */
  onError?: (error: unknown) => void;
}

export class OtlpJsonBatchProcessor implements SpanProcessor {
  private readonly queue: OtlpJsonEncoder;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly exporter: OtlpHttpJsonExporter;
  private readonly delayMs: number;
  private readonly batchSize: number;
  private readonly maxQueue: number;
  private readonly maxConcurrent: number;
  private readonly onError: (error: unknown) => void;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Spans dropped because the queue was full. */
  dropped = 0;

  constructor(options: OtlpBatchOptions) {
    this.exporter = options.exporter;
    this.delayMs = options.scheduledDelayMillis ?? 1000;
    this.batchSize = Math.max(1, options.maxExportBatchSize ?? 512);
    this.maxQueue = Math.max(this.batchSize, options.maxQueueSize ?? 4096);
    this.maxConcurrent = Math.max(1, options.maxConcurrentExports ?? 2);
    this.queue = new OtlpJsonEncoder(this.batchSize);
    this.onError = options.onError ?? (() => {});
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.stopped || (span.spanContext().traceFlags & 1) === 0) return;
    if (this.queue.size >= this.maxQueue) {
      this.dropped += 1;
      return;
    }
    this.queue.add(span);
    if (this.queue.fullBatch) this.send(false);
    else this.timer ??= setTimeout(this.send, this.delayMs).unref();
  }

  async forceFlush(): Promise<void> {
    for (;;) {
      this.send(true);
      if (this.inFlight.size === 0) return;
      await Promise.race(this.inFlight);
    }
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    await this.forceFlush();
    this.stopped = true;
    await this.exporter.shutdown();
  }

  /** Sends waiting batches while requests may start: full ones only unless `all` (timer, flush). */
  private readonly send = (all = true): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight.size < this.maxConcurrent) {
      const body = this.queue.take(all);
      if (body === undefined) break;
      const sending: Promise<void> = this.exporter.send(body).then(
        () => this.settled(sending),
        (error: unknown) => {
          this.onError(error);
          this.settled(sending);
        },
      );
      this.inFlight.add(sending);
    }
    if (this.queue.size > 0) this.timer = setTimeout(this.send, this.delayMs).unref();
  };

  private settled(sending: Promise<void>): void {
    this.inFlight.delete(sending);
    if (this.queue.fullBatch) this.send(false);
  }
}
