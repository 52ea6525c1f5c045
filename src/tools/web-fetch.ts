import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import type { Tool } from './types.ts';
import { htmlToText } from './html-to-text.ts';
import { fetchOnce } from './http-get.ts';
import { isPublicAddress } from './network-address.ts';
import type { FetchedResponse } from './http-get.ts';
import { configuredTool } from './tool-arguments.ts';

export const webFetchConfigSchema = z.object({
  allowPrivateNetwork: z.boolean().default(false).meta({
    title: 'Allow private network',
    description:
      'Let the tool reach loopback, private and link-local addresses (off: only the public internet).',
  }),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .default(1024 * 1024)
    .meta({
      title: 'Size cap (bytes)',
      description: 'Reading stops after this many bytes of (decompressed) body.',
    }),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .default(15_000)
    .meta({ title: 'Time limit (ms)', description: 'For the whole fetch, redirects included.' }),
});

export type WebFetchConfig = z.input<typeof webFetchConfigSchema>;

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const webFetchArguments = z.object({
  url: z.string().min(1).describe('http or https URL to fetch'),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Read at most this many bytes (capped by the tool config)'),
});

/**
 * Fetches a public web page and returns it as text (HTML reduced to readable text). Every hop of a
 * redirect is checked again, and every address a name resolves to must be public, unless the
 * config allows the private network. `isAllowedAddress` replaces the public-only rule (tests).
 */
export function createWebFetchTool(
  config: WebFetchConfig = {},
  options: { isAllowedAddress?: (address: string) => boolean } = {},
): Tool {
  return configuredTool(
    {
      name: 'web_fetch',
      description: 'Fetch a web page or text resource over http(s) and return its content as text.',
      arguments: webFetchArguments,
      configSchema: webFetchConfigSchema,
      async execute(request, context, settings) {
        const isAllowed = settings.allowPrivateNetwork
          ? () => true
          : (options.isAllowedAddress ?? isPublicAddress);
        const maxBytes = Math.min(request.maxBytes ?? settings.maxBytes, settings.maxBytes);
        const timeout = AbortSignal.timeout(settings.timeoutMs);
        const signal = AbortSignal.any([context.signal, timeout]);
        let url = parseUrl(request.url);
        try {
          for (let hop = 0; ; hop += 1) {
            const response = await fetchOnce(url, { signal, maxBytes, isAllowed });
            if (REDIRECT_STATUSES.has(response.status) && response.location !== undefined) {
              if (hop >= MAX_REDIRECTS)
                throw new AppError('upstream', `too many redirects (more than ${MAX_REDIRECTS})`);
              url = parseUrl(new URL(response.location, url).href);
              continue;
            }
            return formatResponse(url, response, maxBytes);
          }
        } catch (error) {
          if (context.signal.aborted) throw context.signal.reason;
          if (timeout.aborted) {
            throw new AppError('timeout', `fetching ${url.href} took longer than ${settings.timeoutMs} ms`);
          }
          if (error instanceof AppError) throw error;
          throw new AppError('upstream', `fetching ${url.href} failed: ${(error as Error).message}`);
        }
      },
    },
    config,
  );
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError('invalid', `not a valid URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('invalid', `only http and https URLs can be fetched, not ${url.protocol}`);
  }
  return url;
}

function formatResponse(url: URL, response: FetchedResponse, maxBytes: number): string {
  const contentType = response.contentType ?? '';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const header = `URL: ${url.href}\nStatus: ${response.status} ${response.statusText}\nContent-Type: ${contentType || 'unknown'}`;
  const textual =
    mediaType === '' ||
    mediaType.startsWith('text/') ||
    /^application\/(json|xml|javascript|x-javascript|ecmascript|x-www-form-urlencoded|ld\+json)$/u.test(
      mediaType,
    ) ||
    /\+(json|xml)$/u.test(mediaType);
  if (!textual || (mediaType === '' && response.body.subarray(0, 8192).includes(0))) {
    return `${header}\n\n(binary content, ${response.body.length}${response.truncated ? '+' : ''} bytes; not shown)`;
  }
  const decoded = decode(response.body, /charset=["']?([\w-]+)/iu.exec(contentType)?.[1]);
  const text =
    mediaType === 'text/html' || mediaType === 'application/xhtml+xml' ? htmlToText(decoded) : decoded;
  const note = response.truncated ? `\n\n[truncated: only the first ${maxBytes} bytes were read]` : '';
  return `${header}\n\n${text}${note}`;
}

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
