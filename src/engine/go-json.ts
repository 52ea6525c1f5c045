// JSON text as Go's encoding/json writes a map[string]interface{}, which is what RuleGo sends on
// whenever a node builds an object (exprTransform's mapping, a map-valued expression, mergeToMap):
// object keys sorted at every level, and <, >, &, U+2028 and U+2029 escaped as \u003c and so on.

const htmlUnsafe = /[<>&\u2028\u2029]/g;

function quote(text: string): string {
  const quoted = JSON.stringify(text);
  return htmlUnsafe.test(quoted)
    ? quoted.replace(htmlUnsafe, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : quoted;
}

/** `value` as Go's json.Marshal writes it; undefined (and functions) as JSON.stringify omits them. */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'null';
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return goJson(withJson.toJSON());
  if (Array.isArray(value)) return `[${value.map((item: unknown) => goJson(item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    parts.push(`${quote(key)}:${goJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}
