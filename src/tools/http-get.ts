import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { AppError } from '../core/errors.ts';

export interface FetchedResponse {
  status: number;
  statusText: string;
  contentType: string | undefined;
  location: string | undefined;
  body: Buffer;
  /** The body was longer than maxBytes and was cut. */
  truncated: boolean;
}

/**
 * A `lookup` for node:http that resolves every address of a name and fails with `refuse`'s error when
 * any is refused, so the connection can only go to a checked address (DNS rebinding cannot slip past).
 */
export function checkedLookup(
  refuse: (address: string, hostname: string) => Error | undefined,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const entry of addresses) {
        const refused = refuse(entry.address, hostname);
        if (refused) return callback(refused as NodeJS.ErrnoException, []);
      }
      const first = addresses[0];
      if (options.all) return callback(null, addresses);
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}

/** The response body decompressed as its content-encoding says (gzip, deflate, br), or as it is. */
export function decodedBody(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(createGunzip());
  if (encoding === 'deflate') return response.pipe(createInflate());
  if (encoding === 'br') return response.pipe(createBrotliDecompress());
  return response;
}

export interface FetchOptions {
  signal: AbortSignal;
  maxBytes: number;
  /** Whether an address may be connected to (public-only by default, see isPublicAddress). */
  isAllowed: (address: string) => boolean;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * One GET without following redirects. The name is resolved once, every resolved address is
 * checked, and the connection goes to a checked address, so DNS rebinding cannot slip past.
 */
export function fetchOnce(url: URL, options: FetchOptions): Promise<FetchedResponse> {
  const host = url.hostname.replace(/^\[|\]$/gu, '');
  if (isIP(host) !== 0 && !options.isAllowed(host)) {
    return Promise.reject(refusal(host));
  }
  const lookup = checkedLookup((address, hostname) =>
    options.isAllowed(address) ? undefined : refusal(`${hostname} (${address})`),
  );
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'GET',
      signal: options.signal,
      lookup,
      headers: {
        'user-agent': 'agent-service-web-fetch/1.0',
        accept: 'text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.8',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    request.once('error', reject);
    request.once('response', (response) => {
      readBody(response, options.maxBytes).then(
        ({ body, truncated }) =>
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? '',
            contentType: response.headers['content-type'],
            location: response.headers.location,
            body,
            truncated,
          }),
        reject,
      );
    });
    request.end();
  });
}

function refusal(target: string): AppError {
  return new AppError(
    'forbidden',
    `refusing to fetch ${target}: private, loopback and link-local addresses are not allowed`,
  );
}

// Reads at most maxBytes of the decoded body; the cap applies after decompression, so a small
// compressed bomb cannot grow past it.
function readBody(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decodedBody(response);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (truncated: boolean): void => {
      if (done) return;
      done = true;
      resolve({ body: Buffer.concat(chunks).subarray(0, maxBytes), truncated });
      if (truncated) {
        response.destroy();
        if (stream !== response) stream.destroy();
      }
    };
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) finish(true);
    });
    stream.once('end', () => finish(false));
    stream.once('error', (error) => {
      if (!done) reject(new AppError('upstream', `reading the response failed: ${error.message}`));
    });
    response.once('error', (error) => {
      if (!done) reject(error);
    });
    response.once('close', () => {
      if (!done && !response.complete)
        reject(new AppError('upstream', 'the connection closed before the response ended'));
    });
  });
}
