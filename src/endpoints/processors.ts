// RuleGo's built-in endpoint processors (builtin/processor), named in a router's `from.processors`
// (applied in order to the message the endpoint built) and `to.processors` (to the answer).
// headersToMetadata copies the request headers into the metadata under Go's canonical names
// (Content-Type), except the credentials (Authorization, Cookie, Proxy-Authorization), which never
// reach a chain's metadata or its run log. toHex replaces the message as RuleGo does: the body as
// upper-case hex text, type and metadata `topic` the source. responseToBody is what every endpoint
// does here already; metadataToHeaders puts the result's metadata into the http answer's headers.
import type { RuleMessage } from '../engine/types.ts';

export interface ProcessorRequest {
  /** Node's lower-case request headers (none for mqtt and schedule). */
  headers?: Record<string, string | string[] | undefined>;
  /** The raw body (a WebSocket or MQTT message). */
  body: Buffer;
  /** RuleGo's From(): the request URL or the topic. */
  from: string;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** `content-type` as Go's textproto writes it: `Content-Type`. */
function canonical(name: string): string {
  return name
    .split('-')
    .map((part) => (part === '' ? part : part[0]?.toUpperCase() + part.slice(1).toLowerCase()))
    .join('-');
}

export function applyInProcessors(
  names: readonly string[] | undefined,
  message: RuleMessage,
  request: ProcessorRequest,
): RuleMessage {
  let current = message;
  for (const name of names ?? []) {
    switch (name) {
      case 'headersToMetadata': {
        const metadata = { ...current.metadata };
        for (const [key, value] of Object.entries(request.headers ?? {})) {
          if (value === undefined || CREDENTIAL_HEADERS.has(key)) continue;
          metadata[canonical(key)] = Array.isArray(value) ? (value[0] ?? '') : value;
        }
        current = { ...current, metadata };
        break;
      }
      case 'setJsonDataType':
        current = { ...current, dataType: 'JSON' };
        break;
      case 'setTextDataType':
        current = { ...current, dataType: 'TEXT' };
        break;
      case 'setBinaryDataType':
        current = { ...current, dataType: 'BINARY' };
        break;
      case 'toHex':
        current = {
          ...current,
          type: request.from,
          dataType: 'TEXT',
          data: request.body.toString('hex').toUpperCase(),
          metadata: { topic: request.from },
        };
        break;
      default:
        // Unknown names are refused when the chain loads (endpoint-dsl.ts).
        break;
    }
  }
  return current;
}

/** metadataToHeaders: the result's metadata as answer headers (names a header cannot carry are skipped). */
export function headersFromMetadata(
  names: readonly string[] | undefined,
  result: RuleMessage,
): Record<string, string> {
  if (!names?.includes('metadataToHeaders')) return {};
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(result.metadata)) {
    if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) && !/[\r\n\0]/.test(value)) headers[key] = value;
  }
  return headers;
}
