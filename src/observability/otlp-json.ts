// Finished spans as an OTLP/JSON ExportTraceServiceRequest (opentelemetry-proto, JSON encoding),
// written straight into one string. The official exporter first builds an object tree per span
// (every attribute as {key, value: {stringValue}}), then JSON.stringify's it and encodes that again:
// three passes and a dozen objects per span, measured as a third of what tracing cost a turn. Here
// each span is one template string, and the resource and scope parts are written once per batch.
//
// The output is what the official JSON serializer writes for the same spans (hex ids, times as
// decimal nanosecond strings, kind + 1, span flags with the is-remote bits, integers as numbers);
// test/observability/otlp-json.test.ts compares the two.
import type { Attributes, AttributeValue, HrTime, Link } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';

type Resource = ReadableSpan['resource'];
type Scope = ReadableSpan['instrumentationScope'];

/** Span flags of OTLP: the W3C trace flags, HAS_IS_REMOTE (0x100) and IS_REMOTE (0x200). */
function flags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);
}

/** Nanoseconds since the epoch as a decimal string: exact where a number would round (past 2^53). */
function nanos(time: HrTime): string {
  const seconds = Math.trunc(time[0]);
  const rest = Math.trunc(time[1]);
  if (seconds === 0) return String(rest);
  return `${seconds}${String(rest).padStart(9, '0')}`;
}

function anyValue(value: unknown): string {
  if (typeof value === 'string') return `{"stringValue":${JSON.stringify(value)}}`;
  if (typeof value === 'number')
    return Number.isInteger(value)
      ? `{"intValue":${String(value)}}`
      : `{"doubleValue":${JSON.stringify(value)}}`;
  if (typeof value === 'boolean') return `{"boolValue":${String(value)}}`;
  if (value instanceof Uint8Array) return `{"bytesValue":"${Buffer.from(value).toString('base64')}"}`;
  if (Array.isArray(value)) return `{"arrayValue":{"values":[${value.map(anyValue).join(',')}]}}`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).map(
      (key) => `{"key":${JSON.stringify(key)},"value":${anyValue((value as Record<string, unknown>)[key])}}`,
    );
    return `{"kvlistValue":{"values":[${entries.join(',')}]}}`;
  }
  return '{}';
}

function attributes(attributes: Attributes): string {
  let out = '';
  for (const key of Object.keys(attributes)) {
    const value: AttributeValue | undefined = attributes[key];
    out += `${out === '' ? '' : ','}{"key":${JSON.stringify(key)},"value":${anyValue(value)}}`;
  }
  return `[${out}]`;
}

function event(event: TimedEvent): string {
  return `{"attributes":${event.attributes ? attributes(event.attributes) : '[]'},"name":${JSON.stringify(
    event.name,
  )},"timeUnixNano":"${nanos(event.time)}","droppedAttributesCount":${event.droppedAttributesCount ?? 0}}`;
}

function link(link: Link): string {
  const { context } = link;
  const state = context.traceState?.serialize();
  return `{"attributes":${link.attributes ? attributes(link.attributes) : '[]'},"spanId":"${
    context.spanId
  }","traceId":"${context.traceId}"${state === undefined ? '' : `,"traceState":${JSON.stringify(state)}`},"droppedAttributesCount":${
    link.droppedAttributesCount ?? 0
  },"flags":${flags(context.traceFlags, context.isRemote)}}`;
}

/** One span as an OTLP/JSON Span object. */
export function encodeSpan(span: ReadableSpan): string {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const state = context.traceState?.serialize();
  const { status } = span;
  return `{"traceId":"${context.traceId}","spanId":"${context.spanId}"${
    parent?.spanId ? `,"parentSpanId":"${parent.spanId}"` : ''
  }${state === undefined ? '' : `,"traceState":${JSON.stringify(state)}`},"name":${JSON.stringify(
    span.name,
  )},"kind":${(span.kind as number | undefined) == null ? 0 : span.kind + 1},"startTimeUnixNano":"${nanos(
    span.startTime,
  )}","endTimeUnixNano":"${nanos(span.endTime)}","attributes":${attributes(
    span.attributes,
  )},"droppedAttributesCount":${span.droppedAttributesCount},"events":[${span.events
    .map(event)
    .join(',')}],"droppedEventsCount":${span.droppedEventsCount},"status":{"code":${status.code}${
    status.message === undefined ? '' : `,"message":${JSON.stringify(status.message)}`
  }},"links":[${span.links.map(link).join(',')}],"droppedLinksCount":${span.droppedLinksCount},"flags":${flags(
    context.traceFlags,
    parent?.isRemote,
  )}}`;
}

function resource(resource: Resource): string {
  const schemaUrl = resource.schemaUrl;
  return `{"attributes":${attributes(resource.attributes)},"droppedAttributesCount":0${
    schemaUrl ? `,"schemaUrl":${JSON.stringify(schemaUrl)}` : ''
  }}`;
}

/** A scope may carry attributes (newer SDKs); the official serializer writes them when it has some. */
type ScopeWithAttributes = Scope & { attributes?: Attributes; droppedAttributesCount?: number };

function scope(scope: ScopeWithAttributes): string {
  const extra = scope.attributes !== undefined && Object.keys(scope.attributes).length > 0;
  return `{"name":${JSON.stringify(scope.name)}${
    scope.version === undefined ? '' : `,"version":${JSON.stringify(scope.version)}`
  }${
    extra
      ? `,"attributes":${attributes(scope.attributes ?? {})},"droppedAttributesCount":${scope.droppedAttributesCount ?? 0}`
      : ''
  }}`;
}

/**
 * The request body for `spans`: grouped by resource, then by instrumentation scope, in the order the
 * spans come (as the official serializer does). The resource and scope parts are computed once per
 * distinct object and kept (a process has one resource and a scope or two).
 */
export class OtlpJsonEncoder {
  private readonly resources = new WeakMap<Resource, string>();
  private readonly scopes = new WeakMap<Scope, string>();

  encode(spans: readonly ReadableSpan[]): string {
    const groups = new Map<Resource, Map<string, { scope: Scope; spans: string[] }>>();
    for (const span of spans) {
      let byScope = groups.get(span.resource);
      if (!byScope) {
        byScope = new Map();
        groups.set(span.resource, byScope);
      }
      const { instrumentationScope: spanScope } = span;
      const key = `${spanScope.name}@${spanScope.version ?? ''}:${spanScope.schemaUrl ?? ''}`;
      let group = byScope.get(key);
      if (!group) {
        group = { scope: spanScope, spans: [] };
        byScope.set(key, group);
      }
      group.spans.push(encodeSpan(span));
    }
    const parts: string[] = [];
    for (const [spanResource, byScope] of groups) {
      const scopeParts: string[] = [];
      for (const { scope: spanScope, spans: encoded } of byScope.values()) {
        scopeParts.push(
          `{"scope":${this.scope(spanScope)},"spans":[${encoded.join(',')}]${
            spanScope.schemaUrl ? `,"schemaUrl":${JSON.stringify(spanScope.schemaUrl)}` : ''
          }}`,
        );
      }
      const schemaUrl = spanResource.schemaUrl;
      parts.push(
        `{"resource":${this.resource(spanResource)},"scopeSpans":[${scopeParts.join(',')}]${
          schemaUrl ? `,"schemaUrl":${JSON.stringify(schemaUrl)}` : ''
        }}`,
      );
    }
    return `{"resourceSpans":[${parts.join(',')}]}`;
  }

  private resource(value: Resource): string {
    // A resource whose attributes are still being detected is written anew each time.
    if (value.asyncAttributesPending) return resource(value);
    let text = this.resources.get(value);
    if (text === undefined) {
      text = resource(value);
      this.resources.set(value, text);
    }
    return text;
  }

  private scope(value: Scope): string {
    let text = this.scopes.get(value);
    if (text === undefined) {
      text = scope(value);
      this.scopes.set(value, text);
    }
    return text;
  }
}
