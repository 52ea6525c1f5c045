// A span exporter for OTLP over HTTP (JSON encoding), in place of @opentelemetry/exporter-trace-otlp-http:
// it implements the SDK's SpanExporter, so the SDK's BatchSpanProcessor batches for it as before.
// What it saves is the encoding (otlp-json.ts writes each span straight into the body) and a URL
// parse, a header object and a promise chain per export; the connection to the collector is kept
// alive between batches.
//
// Like the official exporter it takes the standard variables: OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_EXPORTER_OTLP_TRACES_HEADERS (`key=value,...`, URL-encoded), ..._TIMEOUT (ms, default 10000)
// and ..._COMPRESSION (`gzip` or `none`). An export that fails with 429, 502, 503, 504 or a network
// error is tried again after a pause (Retry-After when the collector sends one) while its time allows.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { gzip } from 'node:zlib';
import type { ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { OtlpJsonEncoder } from './otlp-json.ts';

const SUCCESS = 0 as ExportResultCode.SUCCESS;
const FAILED = 1 as ExportResultCode.FAILED;
const USER_AGENT = 'agent-service OTLP/JSON exporter';
/** Bytes of a collector's answer read at most (its body is only drained). */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const ATTEMPTS = 4;

export interface OtlpExporterOptions {
  /** The full traces URL (…/v1/traces). */
  url: string;
  headers?: Record<string, string>;
  /** Time for one export, all its attempts together (default 10000 ms). */
  timeoutMs?: number;
  compression?: 'gzip' | 'none';
}

type Environment = Record<string, string | undefined>;

function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      const name = decodeURIComponent(pair.slice(0, at).trim());
      const value = decodeURIComponent(pair.slice(at + 1).trim());
      if (name !== '') headers[name] = value;
    } catch {
      // a malformed escape: that pair is skipped, as the official exporter does
    }
  }
  return headers;
}

/** The exporter settings the OTEL_EXPORTER_OTLP_* variables give (the traces-specific ones win). */
export function otlpEnvironmentOptions(env: Environment = process.env): Omit<OtlpExporterOptions, 'url'> {
  const pick = (name: string) =>
    env[`OTEL_EXPORTER_OTLP_TRACES_${name}`] ?? env[`OTEL_EXPORTER_OTLP_${name}`];
  const timeout = Number(pick('TIMEOUT'));
  const compression = pick('COMPRESSION')?.trim().toLowerCase();
  return {
    headers: {
      ...parseHeaders(env['OTEL_EXPORTER_OTLP_HEADERS']),
      ...parseHeaders(env['OTEL_EXPORTER_OTLP_TRACES_HEADERS']),
    },
    ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
    ...(compression === 'gzip' ? { compression: 'gzip' as const } : {}),
  };
}

interface Attempt {
  /** `retry`: worth another attempt, after `retryAfterMs` when the collector said so. */
  status: 'success' | 'retry' | 'failure';
  error?: Error;
  retryAfterMs?: number;
}

function retryAfterMs(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export class OtlpHttpJsonExporter implements SpanExporter {
  private readonly encoder = new OtlpJsonEncoder();
  private readonly url: URL;
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly compression: 'gzip' | 'none';
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(options: OtlpExporterOptions) {
    this.url = new URL(options.url);
    const https = this.url.protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.request = https ? httpsRequest : httpRequest;
    this.compression = options.compression ?? 'none';
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.headers = {
      ...options.headers,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...(this.compression === 'gzip' ? { 'content-encoding': 'gzip' } : {}),
    };
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: FAILED, error: new Error('the exporter is shut down') });
      return;
    }
    const done = this.send(this.encoder.encode(spans)).then(
      () => resultCallback({ code: SUCCESS }),
      (error: unknown) =>
        resultCallback({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.pending);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
    this.agent.destroy();
  }

  /** Posts a request body (OTLP/JSON, see otlp-json.ts), trying again while that is worth it. */
  async send(json: Buffer): Promise<void> {
    if (this.stopped) throw new Error('the exporter is shut down');
    const body = this.compression === 'gzip' ? await gzipped(json) : json;
    const deadline = Date.now() + this.timeoutMs;
    let pause = 1000;
    for (let attempt = 1; ; attempt++) {
      const result = await this.post(body, deadline - Date.now());
      if (result.status === 'success') return;
      const wait = result.retryAfterMs ?? pause * (0.8 + Math.random() * 0.4);
      if (result.status === 'failure' || attempt >= ATTEMPTS || this.stopped || Date.now() + wait >= deadline)
        throw result.error ?? new Error('the OTLP export failed');
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
      pause = Math.min(pause * 1.5, 5000);
    }
  }

  private post(body: Buffer, timeoutMs: number): Promise<Attempt> {
    return new Promise((resolve) => {
      const request = this.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { ...this.headers, 'content-length': String(body.length) },
        },
        (response: IncomingMessage) => {
          const status = response.statusCode ?? 0;
          let size = 0;
          let text = '';
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              resolve({ status: 'failure', error: new Error('the OTLP collector answered too much') });
              response.destroy();
            } else if (status >= 300 && text.length < 1000) text += chunk.toString('utf8');
          });
          response.on('error', (error) => resolve({ status: status < 300 ? 'success' : 'failure', error }));
          response.on('end', () => {
            if (status >= 200 && status < 300) resolve({ status: 'success' });
            else {
              const error = new Error(`the OTLP collector answered ${status}: ${text.slice(0, 200)}`);
              const retryable = status === 429 || status === 502 || status === 503 || status === 504;
              const after = retryAfterMs(response.headers['retry-after']);
              resolve({
                status: retryable ? 'retry' : 'failure',
                error,
                ...(after !== undefined ? { retryAfterMs: after } : {}),
              });
            }
          });
        },
      );
      request.setTimeout(Math.max(1, timeoutMs), () => {
        request.destroy(new Error('the OTLP export timed out'));
      });
      // Network errors (refused, reset, timed out) are worth another attempt.
      request.on('error', (error) => resolve({ status: 'retry', error }));
      request.end(body);
    });
  }
}

function gzipped(text: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    gzip(text, (error, result) => (error ? reject(error) : resolve(result))),
  );
}
