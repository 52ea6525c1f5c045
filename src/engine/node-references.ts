// RuleGo's cross-node references (utils/dsl ExtractReferencedNodeIds): a node whose configuration
// names `<nodeId>.msg`, `.metadata`, `.data`, `.id`, `.ts`, `.dataType`, `.global` or `.vars` of
// another node of its chain reads that node's last output in the run. Found once when a chain loads.

// As RuleGo's nodeRefRegex: an id of letters, digits, `_`, `-` and `/`, not preceded by a name or a dot.
const REFERENCE =
  /(?<![A-Za-z0-9_./-])([A-Za-z0-9_\-/]+)\.(?:data|msg|metadata|id|ts|dataType|global|vars)(?![A-Za-z0-9_])/g;

/**
 * In a Go text/template (`{{ .node1.msg.x }}`) the id follows a dot, which RuleGo's pattern skips;
 * we take it there too, so text/template reads node outputs like the expression nodes.
 */
const TEMPLATE_REFERENCE =
  /(?<![A-Za-z0-9_])\.([A-Za-z0-9_\-/]+)\.(?:data|msg|metadata|id|ts|dataType|global|vars)(?![A-Za-z0-9_])/g;

/** Names RuleGo never takes for a node id (its BuiltinVars). */
const BUILT_IN = new Set([
  'msg',
  'metadata',
  'msgType',
  'global',
  'vars',
  'len',
  'string',
  'int',
  'float',
  'bool',
  'true',
  'false',
]);

/** The ids of `definedIds` that the strings of `configuration`, at any depth, refer to; in order, once each. */
export function referencedNodeIds(configuration: unknown, definedIds: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (!value.includes('.')) return;
      const matches = value.includes('{{')
        ? [...value.matchAll(REFERENCE), ...value.matchAll(TEMPLATE_REFERENCE)]
        : value.matchAll(REFERENCE);
      for (const match of matches) {
        const id = match[1] ?? '';
        if (!BUILT_IN.has(id) && definedIds.has(id)) found.add(id);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(configuration);
  return [...found];
}
