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
  const lookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: lookupOptions.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => !options.isAllowed(entry.address));
      if (refused) return callback(refusal(`${hostname} (${refused.address})`) as NodeJS.ErrnoException, []);
      const first = addresses[0];
      if (lookupOptions.all) return callback(null, addresses);
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
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
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  let stream: Readable = response;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.pipe(createGunzip());
  else if (encoding === 'deflate') stream = response.pipe(createInflate());
  else if (encoding === 'br') stream = response.pipe(createBrotliDecompress());
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
