// Our OTLP/JSON span exporter (src/observability/otlp-exporter.ts): the body it posts is the one the
// official @opentelemetry/exporter-trace-otlp-http writes for the same spans, field for field; it
// sends the OTEL_EXPORTER_OTLP_* headers, gzips when asked, retries what is worth retrying. The batch
// processor (otlp-batch.ts) sends full batches at once and the rest after the delay, in order, with
// bounded requests in flight and a bounded queue.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { context, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { ExportResultCode, TraceState, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { OtlpJsonBatchProcessor, type OtlpBatchOptions } from '../../src/observability/otlp-batch.ts';
import { OtlpHttpJsonExporter, otlpEnvironmentOptions } from '../../src/observability/otlp-exporter.ts';
import { OtlpJsonEncoder } from '../../src/observability/otlp-json.ts';
import { startFakeOtlpCollector, type FakeOtlpCollector } from '../fakes/fake-otlp-collector.ts';

/** Spans of every shape the encoder meets: all attribute types, events, links, statuses, parents. */
async function makeSpans(): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'svc "quoted"', 'service.version': '1.2.3' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('agent-service', '9.9.9');
  const other = provider.getTracer('other-scope');
  const remote = trace.setSpanContext(context.active(), {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: 1,
    isRemote: true,
    traceState: new TraceState('vendor=abc,other=x'),
  });
  const root: Span = tracer.startSpan(
    'invoke_agent main',
    {
      kind: SpanKind.SERVER,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        text: 'line\nbreak "quotes" \\ é 漢字 \u0001',
        int: 42,
        negative: -7,
        big: 2 ** 60,
        double: 0.25,
        yes: true,
        no: false,
        strings: ['stop', 'tool_calls'],
        numbers: [1, 2.5, 3],
        flags: [true, false],
        empty: [],
        holes: ['a', null, 'b'],
      },
    },
    remote,
  );
  root.addEvent('first event', { detail: 'x', count: 3 });
  root.addEvent('bare event');
  const child = tracer.startSpan(
    'chat fake-model',
    {
      kind: SpanKind.CLIENT,
      links: [
        {
          context: {
            traceId: '0af7651916cd43dd8448eb211c80319c',
            spanId: 'b7ad6b7169203331',
            traceFlags: 0,
            isRemote: true,
            traceState: new TraceState('k=v'),
          },
          attributes: { why: 'follows' },
        },
        {
          context: { traceId: '0af7651916cd43dd8448eb211c80319d', spanId: 'b7ad6b7169203332', traceFlags: 1 },
        },
      ],
    },
    trace.setSpan(context.active(), root),
  );
  child.setAttributes({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.response.finish_reasons': ['stop'] });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream "broke"' });
  child.end();
  const ok = other.startSpan('node end', { kind: SpanKind.INTERNAL });
  ok.setStatus({ code: SpanStatusCode.OK });
  ok.end();
  const fresh = tracer.startSpan('root of a new trace', { kind: SpanKind.PRODUCER });
  fresh.end([1_700_000_000, 5]);
  root.end();
  await provider.forceFlush();
  return memory.getFinishedSpans();
}

function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

describe('OTLP/JSON span exporter', () => {
  let collector: FakeOtlpCollector;
  before(async () => {
    collector = await startFakeOtlpCollector();
  });
  after(async () => {
    await collector.close();
  });

  it('posts the body the official OTLP/HTTP JSON exporter posts for the same spans', async () => {
    const spans = await makeSpans();
    assert.equal(spans.length, 4);
    const url = `${collector.url}/v1/traces`;
    const official = new OTLPTraceExporter({ url });
    const ours = new OtlpHttpJsonExporter({ url });
    assert.equal((await exportWith(official, spans)).code, ExportResultCode.SUCCESS);
    assert.equal((await exportWith(ours, spans)).code, ExportResultCode.SUCCESS);
    await official.shutdown();
    await ours.shutdown();
    const [theirs, mine] = collector.requests.slice(-2);
    assert.equal(mine?.url, '/v1/traces');
    assert.equal(mine?.headers['content-type'], 'application/json');
    const expected = JSON.parse(theirs?.body ?? '') as { resourceSpans: unknown[] };
    assert.equal(expected.resourceSpans.length, 1);
    assert.deepEqual(JSON.parse(mine?.body ?? ''), expected);
  });

  it('sends the OTEL_EXPORTER_OTLP headers, gzips when asked and retries a 503', async () => {
    collector.requests.length = 0;
    const options = otlpEnvironmentOptions({
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=one',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=two',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    const exporter = new OtlpHttpJsonExporter({ url: `${collector.url}/v1/traces`, ...options });
    collector.script(503);
    const result = await exportWith(exporter, await makeSpans());
    await exporter.shutdown();
    assert.equal(result.code, ExportResultCode.SUCCESS);
    assert.equal(collector.requests.length, 2, 'the 503 was tried again');
    const last = collector.requests[1];
    assert.equal(last?.headers['authorization'], 'Bearer abc');
    assert.equal(last?.headers['x-team'], 'two');
    assert.equal(last?.headers['content-encoding'], 'gzip');
    assert.equal(collector.requests[0]?.body, last?.body);
    assert.match(last?.body ?? '', /"name":"invoke_agent main"/);
  });

  it('fails an export the collector refuses (400) without trying again', async () => {
    collector.requests.length = 0;
    const exporter = new OtlpHttpJsonExporter({ url: `${collector.url}/v1/traces` });
    collector.script(400);
    const result = await exportWith(exporter, await makeSpans());
    assert.equal(result.code, ExportResultCode.FAILED);
    assert.match(String(result.error?.message), /400/);
    assert.equal(collector.requests.length, 1);
    await exporter.shutdown();
    const refused = await exportWith(exporter, await makeSpans());
    assert.equal(refused.code, ExportResultCode.FAILED, 'nothing is sent once shut down');
    assert.equal(collector.requests.length, 1);
  });
});

describe('OTLP/JSON encoder', () => {
  it('writes each batch as a fresh encoder would, on the buffers of batches sent before', async () => {
    const shapes = await makeSpans();
    // Long spans and short ones in turn: a buffer reused holds more of an older batch than is new.
    const spans = Array.from(
      { length: 40 },
      (_, index) => shapes[(index * 7) % shapes.length] as ReadableSpan,
    );
    const encoder = new OtlpJsonEncoder(3);
    let taken = 0;
    for (let index = 0; index < spans.length; index++) {
      encoder.add(spans[index] as ReadableSpan);
      // Batches are taken as they fill, or now and then part of one (as the timer does).
      const body = encoder.take(index % 5 === 4);
      if (body === undefined) continue;
      const batch = spans.slice(taken, index + 1);
      taken = index + 1;
      assert.equal(
        body.toString(),
        new OtlpJsonEncoder().encode(batch).toString(),
        `batch ending at ${index}`,
      );
    }
    assert.ok(taken > 30);
  });
});

describe('OTLP/JSON batch span processor', () => {
  let collector: FakeOtlpCollector;
  before(async () => {
    collector = await startFakeOtlpCollector();
  });
  after(async () => {
    await collector.close();
  });

  const spanNames = (body: string): string[] =>
    [...body.matchAll(/"name":"(span \d+)"/gu)].map((match) => match[1] as string);

  function setup(options: Partial<OtlpBatchOptions>) {
    const errors: unknown[] = [];
    const processor = new OtlpJsonBatchProcessor({
      exporter: new OtlpHttpJsonExporter({ url: `${collector.url}/v1/traces` }),
      onError: (error) => errors.push(error),
      ...options,
    });
    const provider = new TracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer('test');
    const end = (from: number, to: number) => {
      for (let index = from; index < to; index++) tracer.startSpan(`span ${index}`).end();
    };
    return { processor, provider, end, errors };
  }

  it('sends full batches at once, the rest after the delay or on flush, in order', async () => {
    collector.requests.length = 0;
    const { provider, end } = setup({ maxExportBatchSize: 3, scheduledDelayMillis: 60_000 });
    end(0, 7);
    await waitFor(() => collector.requests.length === 2, 'the two full batches');
    assert.deepEqual(spanNames(collector.requests[0]?.body ?? ''), ['span 0', 'span 1', 'span 2']);
    assert.deepEqual(spanNames(collector.requests[1]?.body ?? ''), ['span 3', 'span 4', 'span 5']);
    await provider.forceFlush();
    assert.equal(collector.requests.length, 3);
    assert.deepEqual(spanNames(collector.requests[2]?.body ?? ''), ['span 6']);
    const body = JSON.parse(collector.requests[2]?.body ?? '') as {
      resourceSpans: Array<{ scopeSpans: Array<{ scope: { name: string } }> }>;
    };
    assert.equal(body.resourceSpans[0]?.scopeSpans[0]?.scope.name, 'test');
    await provider.shutdown();
  });

  it('sends a partial batch after the delay', async () => {
    collector.requests.length = 0;
    const { provider, end } = setup({ maxExportBatchSize: 100, scheduledDelayMillis: 20 });
    end(0, 2);
    await waitFor(() => collector.requests.length === 1, 'the batch sent by the timer');
    assert.deepEqual(spanNames(collector.requests[0]?.body ?? ''), ['span 0', 'span 1']);
    await provider.shutdown();
  });

  it('keeps at most maxConcurrentExports requests in flight and drops spans past maxQueueSize', async () => {
    collector.requests.length = 0;
    collector.pause();
    const { processor, provider, end } = setup({
      maxExportBatchSize: 2,
      maxQueueSize: 4,
      maxConcurrentExports: 1,
      scheduledDelayMillis: 60_000,
    });
    end(0, 2);
    await waitFor(() => collector.waiting() === 1, 'the first request');
    end(2, 10);
    // With one request in flight the next batches wait: four spans fill the queue, four are dropped.
    assert.equal(processor.dropped, 4);
    assert.equal(collector.waiting(), 1);
    collector.resume();
    await provider.forceFlush();
    const sent = collector.requests.flatMap((request) => spanNames(request.body));
    assert.deepEqual(sent, ['span 0', 'span 1', 'span 2', 'span 3', 'span 4', 'span 5']);
    await provider.shutdown();
  });

  it('reports a batch the collector refused', async () => {
    collector.script(400);
    const { provider, end, errors } = setup({ maxExportBatchSize: 1 });
    end(0, 1);
    await waitFor(() => errors.length === 1, 'the failed export');
    assert.match(String(errors[0]), /400/);
    await provider.shutdown();
  });
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
