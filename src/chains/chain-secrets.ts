// Secrets inside agent and rule-chain definitions (a node's `key`, `apiKey`, `password`, `token`,
// `secret`, an MCP server's `env` and `headers`) are write-only: views show them as SECRET_MARK, and a
// definition saved back with the mark keeps the stored value. A `${...}` reference holds no secret and
// is shown as it is.
import { invalid } from '../core/errors.ts';

export const SECRET_MARK = '***';

/** Header names that never carry a credential; every other header value is treated as secret. */
const PLAIN_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'user-agent',
]);

const SECRET_NAME = /(^key$|password$|passwd$|secret$|token$|apikey$|privatekey$|credentials?$)/;

type Segment = string;
type Path = Segment[];

function isReference(value: string): boolean {
  return /^\$\{[^}]+\}$/.test(value.trim());
}

function isSecretKey(name: string, parent: string | undefined): boolean {
  if (parent === 'env') return true;
  if (parent === 'headers') return !PLAIN_HEADERS.has(name.toLowerCase());
  return SECRET_NAME.test(name.toLowerCase().replace(/[-_]/g, ''));
}

/** An array item's segment: its `id` or `name` when it has one (stable across reorders), else its index. */
function itemSegment(item: unknown, index: number): Segment {
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    const { id, name } = item as { id?: unknown; name?: unknown };
    if (typeof id === 'string') return `[id=${id}]`;
    if (typeof name === 'string') return `[name=${name}]`;
  }
  return `[${index}]`;
}

/**
 * Calls `visit` for every string value under a secret key, with its path; `visit` returns the value to
 * put in its place. Returns a copy; the input is not changed.
 */
function mapSecrets(value: unknown, visit: (text: string, path: Path) => string, path: Path = []): unknown {
  if (Array.isArray(value))
    return value.map((item, index) => mapSecrets(item, visit, [...path, itemSegment(item, index)]));
  if (!value || typeof value !== 'object') return value;
  const parent = path[path.length - 1];
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (typeof child === 'string' && child !== '' && isSecretKey(key, parent) && !isReference(child)) {
      out[key] = visit(child, [...path, key]);
    } else {
      out[key] = mapSecrets(child, visit, [...path, key]);
    }
  }
  return out;
}

function secretsByPath(definition: unknown): Map<string, string> {
  const found = new Map<string, string>();
  mapSecrets(definition, (text, path) => {
    found.set(path.join('.'), text);
    return text;
  });
  return found;
}

/** The definition as views show it: every secret replaced by SECRET_MARK. */
export function redactChainSecrets<T>(definition: T): T {
  return mapSecrets(definition, () => SECRET_MARK) as T;
}

/**
 * A definition sent by a client: each SECRET_MARK at a secret key takes the value stored at the same
 * place (a node by its id, a tool by its name). A mark with nothing stored behind it is refused.
 */
export function restoreChainSecrets(body: unknown, stored: unknown): unknown {
  const known = stored === undefined ? new Map<string, string>() : secretsByPath(stored);
  return mapSecrets(body, (text, path) => {
    if (text !== SECRET_MARK) return text;
    const where = path.join('.');
    const value = known.get(where);
    if (value === undefined)
      throw invalid(
        `${where}: "${SECRET_MARK}" stands for a stored secret, but none is stored here; send the value`,
      );
    return value;
  });
}
