// OpenTelemetry traces, exported over OTLP/HTTP. Loaded only when an endpoint is configured: without
// one, no OpenTelemetry module is imported and every span call is a no-op of the caller's.
// Each span is encoded to OTLP/JSON as it ends and sent in batches (otlp-batch.ts, otlp-exporter.ts).
// Spans are parented explicitly (a turn's spans hang under its invoke_agent span), so no global
// context manager is installed and nothing of ours touches OpenTelemetry's process-wide state.
import { randomUUID } from 'node:crypto';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';

export interface SpanHandle {
  readonly traceId: string;
  /** Whether the span is recorded (exported): when not, its attributes need not even be built. */
  readonly recording: boolean;
  setAttributes(attributes: Attributes): void;
  /** Marks the span failed, with the error's type and message. */
  fail(error: string, type?: string): void;
  end(): void;
  /** The W3C traceparent of this span, to send downstream. */
  traceparent(): string;
}

export type SpanKind = 'server' | 'client' | 'internal';

export interface Tracing {
  /**
   * A span under `parent` (a span, an incoming traceparent, or none for a new trace). `attributes`
   * is called only for a span that is recorded; under a parent that is not, the parent itself is
   * returned (one no-op handle for the whole unrecorded trace).
   */
  start(
    name: string,
    kind: SpanKind,
    parent: SpanHandle | string | undefined,
    attributes: () => Attributes,
  ): SpanHandle;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface TracingOptions {
  /** Base URL of the collector (http://host:4318) or its full traces URL (.../v1/traces). */
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
  /** How often batches are sent, in ms (default 1000). */
  exportIntervalMs?: number;
  /** Share of new traces recorded (default 1); a continued trace follows its caller's flag. */
  sampleRatio?: number;
}

/**
 * The sampling ratio the standard variables ask for, or undefined when they say nothing usable.
 * OTEL_TRACES_SAMPLER: always_on, always_off, traceidratio (with OTEL_TRACES_SAMPLER_ARG, 0 to 1,
 * default 1) and their parentbased_ forms. Every form is applied parent-based: a trace continued
 * from a caller keeps the caller's decision, so no trace is recorded in part.
 */
export function sampleRatioFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const name = env['OTEL_TRACES_SAMPLER']
    ?.trim()
    .toLowerCase()
    .replace(/^parentbased_/u, '');
  if (name === 'always_on') return 1;
  if (name === 'always_off') return 0;
  if (name !== 'traceidratio') return undefined;
  const ratio = Number(env['OTEL_TRACES_SAMPLER_ARG'] ?? '1');
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
}

interface RemoteParent {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote: true;
}

/** The parent an incoming W3C traceparent names, or undefined for a malformed or all-zero one. */
function remoteParent(traceparent: string): RemoteParent | undefined {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/u.exec(traceparent.trim());
  if (!match || /^0+$/u.test(match[1] as string) || /^0+$/u.test(match[2] as string)) return undefined;
  return {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16) & 1,
    isRemote: true,
  };
}

/**
 * A trace that is not recorded (sampled out): nothing of it reaches the SDK, no attributes are
 * built, and its spans are all this one handle. Its traceparent carries the trace on with the
 * sampled flag off, so the model provider and anything after it leave the trace unrecorded too;
 * each traceparent asked for (one per downstream call) names a span id of its own.
 */
class Unrecorded implements SpanHandle {
  readonly recording = false;
  constructor(readonly traceId: string) {}
  setAttributes(): void {}
  fail(): void {}
  end(): void {}
  traceparent(): string {
    // randomUUID draws from a cached pool; randomBytes(8) went to OpenSSL each time (~9 % of the
    // observer's work per turn, measured). 62 random bits: the variant nibble is one of four values.
    return `00-${this.traceId}-${randomUUID().replaceAll('-', '').slice(16)}-00`;
  }
}

/**
 * A new trace id: a random UUID's 32 hex digits (Node hands them out from a batch it fills once
 * per 128 ids). 122 random bits; the ratio sampler XORs the four 8-digit parts, and the first and
 * last are wholly random, so its decision stays uniform.
 */
function newTraceId(): string {
  return randomUUID().replaceAll('-', '');
}

export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/u, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

export async function createTracing(options: TracingOptions): Promise<Tracing> {
  // Our exporter and processor load with the SDK: a server without traces never loads node:https.
  const [api, sdk, resources, { OtlpHttpJsonExporter, otlpEnvironmentOptions }, { OtlpJsonBatchProcessor }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/resources'),
      import('./otlp-exporter.ts'),
      import('./otlp-batch.ts'),
    ]);
  const exporter = new OtlpHttpJsonExporter({
    url: tracesUrl(options.endpoint),
    ...otlpEnvironmentOptions(),
  });
  const ratio = options.sampleRatio ?? 1;
  // A new trace is decided here, before the SDK or the caller's attributes are touched: with the
  // SDK's own ratio sampler on an id drawn here, which the SDK is then handed for the span it
  // starts (its sampler, the same one, comes to the same decision).
  const rootSampler = ratio >= 1 ? undefined : new sdk.TraceIdRatioBasedSampler(ratio);
  const sampled = api.SamplingDecision.RECORD_AND_SAMPLED;
  const randomIds = new sdk.RandomIdGenerator();
  let nextTraceId: string | undefined;
  const idGenerator = {
    generateTraceId: (): string => {
      const id = nextTraceId ?? randomIds.generateTraceId();
      nextTraceId = undefined;
      return id;
    },
    generateSpanId: (): string => randomIds.generateSpanId(),
  };
  const provider = new sdk.TracerProvider({
    idGenerator,
    sampler: new sdk.ParentBasedSampler({
      root: ratio >= 1 ? new sdk.AlwaysOnSampler() : new sdk.TraceIdRatioBasedSampler(ratio),
    }),
    resource: resources.resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion,
    }),
    spanProcessors: [
      new OtlpJsonBatchProcessor({
        exporter,
        scheduledDelayMillis: options.exportIntervalMs ?? 1000,
        maxQueueSize: 4096,
        onError: (error) => api.diag.error('OTLP trace export failed', error),
      }),
    ],
  });
  const tracer: Tracer = provider.getTracer('agent-service', options.serviceVersion);
  const kinds = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT, internal: api.SpanKind.INTERNAL };
  const errorCode = api.SpanStatusCode.ERROR;

  /** Our handle on an SDK span; its context as a parent is made once, for all its children. */
  class Handle implements SpanHandle {
    readonly recording = true;
    readonly traceId: string;
    parentContext: Context | undefined;
    constructor(readonly span: Span) {
      this.traceId = span.spanContext().traceId;
    }
    setAttributes(more: Attributes): void {
      this.span.setAttributes(more);
    }
    fail(error: string, type = 'error'): void {
      this.span.setStatus({ code: errorCode, message: error });
      this.span.setAttribute('error.type', type);
    }
    end(): void {
      this.span.end();
    }
    traceparent(): string {
      const context = this.span.spanContext();
      return `00-${context.traceId}-${context.spanId}-0${context.traceFlags & 1}`;
    }
  }

  const parentContext = (parent: Handle | RemoteParent | undefined) => {
    if (parent === undefined) return api.ROOT_CONTEXT;
    if (!(parent instanceof Handle)) return api.trace.setSpanContext(api.ROOT_CONTEXT, parent);
    parent.parentContext ??= api.trace.setSpan(api.ROOT_CONTEXT, parent.span);
    return parent.parentContext;
  };

  return {
    start(name, kind, parent, attributes) {
      // The sampler is parent-based: under a parent not recorded nothing is, and the SDK is skipped.
      if (parent instanceof Unrecorded) return parent;
      const from =
        typeof parent === 'string' ? remoteParent(parent) : parent instanceof Handle ? parent : undefined;
      if (from !== undefined && !(from instanceof Handle) && (from.traceFlags & 1) === 0)
        return new Unrecorded(from.traceId);
      if (from === undefined && rootSampler !== undefined) {
        const traceId = newTraceId();
        if (rootSampler.shouldSample(api.ROOT_CONTEXT, traceId).decision !== sampled)
          return new Unrecorded(traceId);
        nextTraceId = traceId;
      }
      // The attributes are set on the started span: given to startSpan, the SDK copies them twice
      // over (for the sampler, whose decision here never depends on them, and again for the span).
      const span = tracer.startSpan(name, { kind: kinds[kind] }, parentContext(from));
      nextTraceId = undefined;
      if (!span.isRecording()) return new Unrecorded(span.spanContext().traceId);
      span.setAttributes(attributes());
      return new Handle(span);
    },
    flush: () => provider.forceFlush(),
    close: () => provider.shutdown(),
  };
}
