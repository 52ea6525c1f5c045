// An OTLP/HTTP collector on 127.0.0.1 that keeps every request it gets (path, headers, body, gunzipped
// when sent so) and answers each with the next scripted status (200 once the script is used up).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface CollectedRequest {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeOtlpCollector {
  url: string;
  requests: CollectedRequest[];
  /** Statuses for the next requests, in order (with Retry-After: 0 for 429 and 503). */
  script(...statuses: number[]): void;
  /** Requests that arrive from now on wait for `resume` before they are answered. */
  pause(): void;
  resume(): void;
  /** Requests received and not yet answered. */
  waiting(): number;
  close(): Promise<void>;
}

export async function startFakeOtlpCollector(): Promise<FakeOtlpCollector> {
  const requests: CollectedRequest[] = [];
  const statuses: number[] = [];
  let paused = false;
  const held: Array<() => void> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => (paused ? held.push(answer) : answer()));
    const answer = () => {
      const raw = Buffer.concat(chunks);
      const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      requests.push({ url: request.url ?? '', headers: request.headers, body: body.toString('utf8') });
      const status = statuses.shift() ?? 200;
      response
        .writeHead(status, {
          'content-type': 'application/json',
          ...(status === 429 || status === 503 ? { 'retry-after': '0' } : {}),
        })
        .end(status === 200 ? '{}' : '{"message":"scripted failure"}');
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...next) => void statuses.push(...next),
    pause: () => void (paused = true),
    resume: () => {
      paused = false;
      for (const answer of held.splice(0)) answer();
    },
    waiting: () => held.length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
