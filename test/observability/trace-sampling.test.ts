// Trace sampling: observability.trace_sample_ratio (or the standard OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG) records that share of new traces; a trace continued from a caller keeps
// the caller's decision either way. An unrecorded trace still reaches the model provider, as a
// traceparent with the sampled flag off, so nothing downstream records part of it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SamplingDecision } from '@opentelemetry/api';
import { TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { createTracing, sampleRatioFromEnv } from '../../src/observability/tracing.ts';
import { startServer } from '../../src/server.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeOtlpCollector, type FakeOtlpCollector } from '../fakes/fake-otlp-collector.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** Trace ids and names of every span the collector received. */
function spans(collector: FakeOtlpCollector): Array<{ traceId: string; name: string }> {
  return collector.requests
    .filter((request) => request.url === '/v1/traces')
    .flatMap((request) => {
      const body = JSON.parse(request.body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; name: string }> }> }>;
      };
      return body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function ask(url: string, content: string, traceparent?: string): Promise<void> {
  const response = await fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(traceparent ? { traceparent } : {}) },
    body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content }] }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  await response.json();
}

describe('trace sampling', () => {
  let upstream: FakeUpstream;
  let collector: FakeOtlpCollector;
  let t: TestApp | undefined;
  before(async () => {
    upstream = await startFakeUpstream();
    collector = await startFakeOtlpCollector();
  });
  after(async () => {
    await t?.close();
    await upstream.close();
    await collector.close();
  });

  it('ratio 0: new traces are not recorded but carried on; a sampled caller trace still is', async () => {
    t = await createTestApp({
      listen: true,
      config: {
        models: upstream.modelsConfig(),
        observability: { otlp_endpoint: collector.url, trace_sample_ratio: 0 },
      },
    });
    // A new trace: not recorded, and the provider is told so.
    await ask(t.url, 'first');
    const fresh = String(upstream.lastHeaders?.['traceparent']);
    assert.match(fresh, /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    // A caller's trace it did not record: carried on, unrecorded.
    await ask(t.url, 'second', `00-${CALLER_TRACE}-${CALLER_SPAN}-00`);
    assert.match(
      String(upstream.lastHeaders?.['traceparent']),
      new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-00$`),
    );
    // A caller's recorded trace: recorded here too, whatever the ratio.
    const recorded = '0af7651916cd43dd8448eb211c80319c';
    await ask(t.url, 'third', `00-${recorded}-${CALLER_SPAN}-01`);
    assert.match(
      String(upstream.lastHeaders?.['traceparent']),
      new RegExp(`^00-${recorded}-[0-9a-f]{16}-01$`),
    );
    await until(
      () => spans(collector).some((span) => span.name === 'invoke_agent main'),
      'the recorded turn',
    );
    // Spans leave in the order they end: those of the first two turns would have come first.
    const exported = spans(collector);
    assert.ok(exported.some((span) => span.name.startsWith('chat ')));
    assert.deepEqual(
      exported.filter((span) => span.traceId !== recorded),
      [],
      'nothing of the unrecorded traces is exported',
    );
    await t.close();
    t = undefined;
  });

  it('an unrecorded trace builds no attributes and is one handle; each traceparent names its own span', async () => {
    const tracing = await createTracing({
      endpoint: collector.url,
      serviceName: 'test',
      serviceVersion: '0',
      sampleRatio: 0,
    });
    try {
      let built = 0;
      const attributes = () => {
        built += 1;
        return { 'gen_ai.operation.name': 'invoke_agent' };
      };
      const root = tracing.start('invoke_agent a', 'server', undefined, attributes);
      assert.equal(root.recording, false);
      assert.match(root.traceId, /^[0-9a-f]{32}$/u);
      const child = tracing.start('chat m', 'client', root, attributes);
      assert.equal(child, root, 'a span under an unrecorded one is the same no-op handle');
      const caller = tracing.start(
        'invoke_agent a',
        'server',
        `00-${CALLER_TRACE}-${CALLER_SPAN}-00`,
        attributes,
      );
      assert.equal(caller.recording, false);
      assert.equal(caller.traceId, CALLER_TRACE);
      assert.equal(built, 0, 'no attributes were built');
      const sent = [child.traceparent(), child.traceparent()];
      for (const traceparent of sent)
        assert.match(traceparent, new RegExp(`^00-${root.traceId}-[0-9a-f]{16}-00$`, 'u'));
      assert.notEqual(sent[0], sent[1], 'each downstream call gets a span id of its own');
    } finally {
      await tracing.close();
    }
  });

  it('a ratio records the share of new traces the SDK ratio sampler picks by trace id', async () => {
    const ratio = 0.25;
    const tracing = await createTracing({
      endpoint: collector.url,
      serviceName: 'test',
      serviceVersion: '0',
      sampleRatio: ratio,
    });
    const sampler = new TraceIdRatioBasedSampler(ratio);
    try {
      let recorded = 0;
      let built = 0;
      const total = 2000;
      for (let index = 0; index < total; index++) {
        const span = tracing.start('root', 'server', undefined, () => {
          built += 1;
          return {};
        });
        // The decision is the SDK sampler's for the span's own trace id, both ways.
        const picked =
          sampler.shouldSample({} as never, span.traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
        assert.equal(span.recording, picked, `trace ${span.traceId}`);
        if (span.recording) recorded += 1;
        span.end();
      }
      assert.equal(built, recorded, 'attributes were built for the recorded spans only');
      assert.ok(recorded > total * 0.2 && recorded < total * 0.3, `${recorded} of ${total} recorded`);
    } finally {
      await tracing.close();
    }
  });

  it('reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the OpenTelemetry SDKs do', () => {
    assert.equal(sampleRatioFromEnv({}), undefined);
    assert.equal(sampleRatioFromEnv({ OTEL_TRACES_SAMPLER: 'always_off' }), 0);
    assert.equal(sampleRatioFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' }), 1);
    const ratio = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' };
    assert.equal(sampleRatioFromEnv(ratio), 0.25);
    assert.equal(sampleRatioFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio' }), 1, 'no argument: 1');
    assert.equal(sampleRatioFromEnv({ ...ratio, OTEL_TRACES_SAMPLER_ARG: '7' }), 1, 'out of range: 1');
    assert.equal(sampleRatioFromEnv({ OTEL_TRACES_SAMPLER: 'jaeger_remote' }), undefined);
  });

  it('a server started with the standard variables only traces and samples as they say', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'trace-env-'));
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ models: upstream.modelsConfig() }));
    const server = await startServer({
      config,
      port: 0,
      cwd: dir,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER: 'always_off' },
      say: () => undefined,
      logLevel: 'silent',
    });
    try {
      assert.equal(server.store.current.observability.trace_sample_ratio, 0);
      await ask(server.url, 'env');
      assert.match(String(upstream.lastHeaders?.['traceparent']), /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
