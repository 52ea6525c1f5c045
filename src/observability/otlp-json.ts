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

/** `{"key":<key>,"value":` of the attribute names seen (ours, a few dozen), each escaped once. */
const keyParts = new Map<string, string>();

function keyPart(key: string): string {
  let part = keyParts.get(key);
  if (part === undefined) {
    part = `{"key":${JSON.stringify(key)},"value":`;
    if (keyParts.size < 1000) keyParts.set(key, part);
  }
  return part;
}

function attributes(attributes: Attributes): string {
  let out = '';
  for (const key in attributes) {
    const value: AttributeValue | undefined = attributes[key];
    out += `${out === '' ? '' : ','}${keyPart(key)}${anyValue(value)}}`;
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
  )},"droppedAttributesCount":${span.droppedAttributesCount},"events":[${
    span.events.length === 0 ? '' : span.events.map(event).join(',')
  }],"droppedEventsCount":${span.droppedEventsCount},"status":{"code":${status.code}${
    status.message === undefined ? '' : `,"message":${JSON.stringify(status.message)}`
  }},"links":[${span.links.length === 0 ? '' : span.links.map(link).join(',')}],"droppedLinksCount":${span.droppedLinksCount},"flags":${flags(
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
 * The spans of one resource and scope in a batch: their JSON, comma-separated, as UTF-8 bytes. A few
 * spans' text is gathered and written into the buffer in one go: a write per span cost as much as
 * encoding it (the buffer's argument checks on every call).
 */
class Group {
  private length = 0;
  private pending = '';
  constructor(
    readonly scope: Scope,
    /** A buffer of a batch sent before, when there is one: grown already, its pages touched. */
    public bytes: Buffer = Buffer.allocUnsafe(16 * 1024),
  ) {}

  append(json: string): void {
    this.pending = this.pending === '' ? json : `${this.pending},${json}`;
    if (this.pending.length >= 8 * 1024) this.write();
  }

  private write(): void {
    const text = this.pending;
    if (text === '') return;
    this.pending = '';
    // At most 3 bytes per UTF-16 unit, and one for the comma.
    const needed = this.length + text.length * 3 + 1;
    if (needed > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    if (this.length > 0) this.bytes[this.length++] = 0x2c;
    this.length += this.bytes.write(text, this.length);
  }

  spans(): Buffer {
    this.write();
    return this.bytes.subarray(0, this.length);
  }
}

/** Spans of a batch, by resource and then by scope key, each in the order they came. */
class Batch {
  readonly groups = new Map<Resource, Map<string, Group>>();
  count = 0;
  constructor(private readonly spare: () => Buffer | undefined = () => undefined) {}

  add(span: ReadableSpan): void {
    let byScope = this.groups.get(span.resource);
    if (!byScope) {
      byScope = new Map();
      this.groups.set(span.resource, byScope);
    }
    const { instrumentationScope: spanScope } = span;
    const key = `${spanScope.name}@${spanScope.version ?? ''}:${spanScope.schemaUrl ?? ''}`;
    let group = byScope.get(key);
    if (!group) {
      group = new Group(spanScope, this.spare());
      byScope.set(key, group);
    }
    group.append(encodeSpan(span));
    this.count += 1;
  }
}

/**
 * Spans encoded as they end, waiting to be sent as request bodies of `batchSize` spans at most.
 * Each span is written as UTF-8 into its batch's buffer at once: nothing of it stays on the heap
 * (neither the span nor the rope of strings its JSON is built from), so a busy server does not
 * copy and promote them through young-generation collections while they wait. A body groups its
 * spans by resource, then by instrumentation scope, in the order they came, as the official
 * serializer does; the resource and scope parts are written once per distinct object and kept.
 */
export class OtlpJsonEncoder {
  private readonly resources = new WeakMap<Resource, Buffer>();
  private readonly scopes = new WeakMap<Scope, string>();
  /**
   * Span buffers of batches already sent, for the next ones. A fresh buffer per batch, grown by
   * doubling to a few hundred KB, cost more than encoding the spans (the copies, and the kernel
   * handing out new pages on first touch: 9% of a traced turn's observer work, profiled).
   */
  private readonly spares: Buffer[] = [];
  private readonly spare = (): Buffer | undefined => this.spares.pop();
  private current = new Batch(this.spare);
  private readonly full: Batch[] = [];
  private waiting = 0;

  constructor(private readonly batchSize = Number.POSITIVE_INFINITY) {}

  /** Spans added and not yet taken. */
  get size(): number {
    return this.waiting;
  }

  /** Whether a full batch waits. */
  get fullBatch(): boolean {
    return this.full.length > 0;
  }

  add(span: ReadableSpan): void {
    this.current.add(span);
    this.waiting += 1;
    if (this.current.count >= this.batchSize) {
      this.full.push(this.current);
      this.current = new Batch(this.spare);
    }
  }

  /** The body of the oldest full batch, or with `partial` of the spans waiting; undefined: none. */
  take(partial: boolean): Buffer | undefined {
    let batch = this.full.shift();
    if (!batch && partial && this.current.count > 0) {
      batch = this.current;
      this.current = new Batch(this.spare);
    }
    if (!batch) return undefined;
    this.waiting -= batch.count;
    return this.body(batch);
  }

  /** The body of a request with these spans (what waits is left as it is). */
  encode(spans: readonly ReadableSpan[]): Buffer {
    const batch = new Batch();
    for (const span of spans) batch.add(span);
    return this.body(batch);
  }

  private body(batch: Batch): Buffer {
    const parts: Buffer[] = [Buffer.from('{"resourceSpans":[')];
    let firstResource = true;
    for (const [spanResource, byScope] of batch.groups) {
      parts.push(Buffer.from(`${firstResource ? '' : ','}{"resource":`), this.resource(spanResource));
      parts.push(Buffer.from(',"scopeSpans":['));
      let firstScope = true;
      for (const group of byScope.values()) {
        const { scope: spanScope } = group;
        parts.push(Buffer.from(`${firstScope ? '' : ','}{"scope":${this.scope(spanScope)},"spans":[`));
        parts.push(group.spans());
        parts.push(
          Buffer.from(
            `]${spanScope.schemaUrl ? `,"schemaUrl":${JSON.stringify(spanScope.schemaUrl)}` : ''}}`,
          ),
        );
        firstScope = false;
      }
      const schemaUrl = spanResource.schemaUrl;
      parts.push(Buffer.from(`]${schemaUrl ? `,"schemaUrl":${JSON.stringify(schemaUrl)}` : ''}}`));
      firstResource = false;
    }
    parts.push(Buffer.from(']}'));
    const body = Buffer.concat(parts);
    // The spans are copied into the body: their buffers serve the next batches (a few at most).
    for (const byScope of batch.groups.values())
      for (const group of byScope.values()) if (this.spares.length < 4) this.spares.push(group.bytes);
    return body;
  }

  private resource(value: Resource): Buffer {
    // A resource whose attributes are still being detected is written anew each time.
    if (value.asyncAttributesPending) return Buffer.from(resource(value));
    let bytes = this.resources.get(value);
    if (bytes === undefined) {
      bytes = Buffer.from(resource(value));
      this.resources.set(value, bytes);
    }
    return bytes;
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
