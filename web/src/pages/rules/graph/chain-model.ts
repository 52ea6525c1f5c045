// The chain definition as the graph editor edits it: parsed from the editor's JSON text and written
// back to it, so the JSON tab, the unsaved-changes guard and saving see one draft. Only nodes,
// connections and firstNodeIndex are changed here; every other key (endpoints, ruleChainConnections,
// keys of later versions) passes through untouched. A node's position is RuleGo's own:
// additionalInfo.layoutX / layoutY, written only for nodes placed or moved in the graph.

export interface DslNode {
  id: string;
  type: string;
  name?: string;
  debugMode?: boolean;
  configuration?: Record<string, unknown>;
  additionalInfo?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface DslConnection {
  fromId: string;
  toId: string;
  type: string;
  [key: string]: unknown;
}

export interface ChainDoc {
  ruleChain: { id: string; name?: string; debugMode?: boolean; [key: string]: unknown };
  metadata: {
    firstNodeIndex?: number;
    nodes: DslNode[];
    connections?: DslConnection[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface Point {
  x: number;
  y: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why the graph cannot show a draft (worded by the editor, in the UI's language). */
export type ChainProblem = 'json' | 'ruleChain' | 'nodeId' | 'connections';

/** The draft as a chain, or why the graph cannot show it (the JSON tab then has to fix it). */
export function parseChain(text: string): { doc: ChainDoc } | { error: ChainProblem; detail?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: 'json', detail: error instanceof Error ? error.message : String(error) };
  }
  if (!isObject(value) || !isObject(value['ruleChain'])) return { error: 'ruleChain' };
  const metadata = isObject(value['metadata']) ? value['metadata'] : {};
  const nodes = Array.isArray(metadata['nodes']) ? metadata['nodes'] : [];
  if (!nodes.every((node) => isObject(node) && typeof node['id'] === 'string')) return { error: 'nodeId' };
  const connections = metadata['connections'];
  if (connections !== undefined && connections !== null && !Array.isArray(connections))
    return { error: 'connections' };
  return {
    doc: {
      ...value,
      ruleChain: value['ruleChain'] as ChainDoc['ruleChain'],
      metadata: { ...metadata, nodes: nodes as DslNode[] } as ChainDoc['metadata'],
    },
  };
}

export function chainText(doc: ChainDoc): string {
  return JSON.stringify(doc, null, 2);
}

export function connectionsOf(doc: ChainDoc): DslConnection[] {
  return (doc.metadata.connections ?? []).filter(
    (connection) => isObject(connection) && typeof connection.fromId === 'string',
  );
}

/** The node a run starts at: nodes[firstNodeIndex], the first one by default. */
export function firstNodeId(doc: ChainDoc): string | undefined {
  return doc.metadata.nodes[doc.metadata.firstNodeIndex ?? 0]?.id;
}

const COLUMN = 260;
const ROW = 130;

/**
 * Where each node is drawn: its stored layoutX/layoutY, else a column per step from the first node
 * (following connections), nodes out of reach in a column after the last.
 */
export function layout(doc: ChainDoc): Map<string, Point> {
  const { nodes } = doc.metadata;
  const depth = new Map<string, number>();
  const first = firstNodeId(doc);
  const next = new Map<string, string[]>();
  for (const connection of connectionsOf(doc))
    next.set(connection.fromId, [...(next.get(connection.fromId) ?? []), connection.toId]);
  const queue = first === undefined ? [] : [first];
  if (first !== undefined) depth.set(first, 0);
  while (queue.length > 0) {
    const id = queue.shift() as string;
    for (const to of next.get(id) ?? []) {
      if (depth.has(to)) continue;
      depth.set(to, (depth.get(id) ?? 0) + 1);
      queue.push(to);
    }
  }
  const lastColumn = Math.max(-1, ...depth.values()) + 1;
  const rows = new Map<number, number>();
  const points = new Map<string, Point>();
  for (const node of nodes) {
    const info = node.additionalInfo;
    const x = info?.['layoutX'];
    const y = info?.['layoutY'];
    if (typeof x === 'number' && typeof y === 'number') {
      points.set(node.id, { x, y });
      continue;
    }
    const column = depth.get(node.id) ?? lastColumn;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    points.set(node.id, { x: 40 + column * COLUMN, y: 40 + row * ROW });
  }
  return points;
}

function withNodes(doc: ChainDoc, nodes: DslNode[], connections?: DslConnection[]): ChainDoc {
  const metadata = { ...doc.metadata, nodes };
  if (connections !== undefined) metadata.connections = connections;
  return { ...doc, metadata };
}

/** A free id for a node of `type`: its last name segment and a number (jsFilter -> jsFilter1). */
export function freeNodeId(doc: ChainDoc, type: string): string {
  const base = (type.split('/').pop() ?? 'node').replace(/[^A-Za-z0-9_-]/g, '') || 'node';
  const taken = new Set(doc.metadata.nodes.map((node) => node.id));
  for (let index = 1; ; index++) if (!taken.has(`${base}${index}`)) return `${base}${index}`;
}

export function addNode(doc: ChainDoc, node: DslNode, at: Point): ChainDoc {
  const placed = { ...node, additionalInfo: { ...node.additionalInfo, ...rounded(at) } };
  return withNodes(doc, [...doc.metadata.nodes, placed]);
}

function rounded(at: Point): { layoutX: number; layoutY: number } {
  return { layoutX: Math.round(at.x), layoutY: Math.round(at.y) };
}

export function moveNodes(doc: ChainDoc, moves: Map<string, Point>): ChainDoc {
  return withNodes(
    doc,
    doc.metadata.nodes.map((node) => {
      const at = moves.get(node.id);
      return at ? { ...node, additionalInfo: { ...node.additionalInfo, ...rounded(at) } } : node;
    }),
  );
}

/** Replaces node `id` (a new id also renames it in every connection and keeps it first if it was). */
export function updateNode(doc: ChainDoc, id: string, next: DslNode): ChainDoc {
  const nodes = doc.metadata.nodes.map((node) => (node.id === id ? next : node));
  if (next.id === id) return withNodes(doc, nodes);
  const rename = (value: string) => (value === id ? next.id : value);
  const connections = connectionsOf(doc).map((connection) => ({
    ...connection,
    fromId: rename(connection.fromId),
    toId: rename(connection.toId),
  }));
  return withNodes(doc, nodes, connections);
}

/** Removes nodes (and their connections) and connections; the first node stays first if kept. */
export function removeParts(doc: ChainDoc, nodeIds: Set<string>, connectionKeys: Set<string>): ChainDoc {
  const first = firstNodeId(doc);
  const nodes = doc.metadata.nodes.filter((node) => !nodeIds.has(node.id));
  const connections = connectionsOf(doc).filter(
    (connection, index) =>
      !nodeIds.has(connection.fromId) &&
      !nodeIds.has(connection.toId) &&
      !connectionKeys.has(connectionKey(connection, index)),
  );
  const next = withNodes(doc, nodes, connections);
  const firstIndex = nodes.findIndex((node) => node.id === first);
  const metadata = { ...next.metadata };
  if (firstIndex > 0) metadata.firstNodeIndex = firstIndex;
  else delete metadata.firstNodeIndex;
  return { ...next, metadata };
}

export function setFirstNode(doc: ChainDoc, id: string): ChainDoc {
  const index = doc.metadata.nodes.findIndex((node) => node.id === id);
  if (index < 0) return doc;
  const metadata = { ...doc.metadata };
  if (index === 0) delete metadata.firstNodeIndex;
  else metadata.firstNodeIndex = index;
  return { ...doc, metadata };
}

/** A connection's key in the graph: its ends, relation and place in the list (duplicates stay apart). */
export function connectionKey(connection: DslConnection, index: number): string {
  return `${connection.fromId}>${connection.toId}>${connection.type}>${index}`;
}

/** Adds a connection; the same one twice is not added again. */
export function connect(doc: ChainDoc, fromId: string, toId: string, relation: string): ChainDoc {
  const connections = connectionsOf(doc);
  if (connections.some((item) => item.fromId === fromId && item.toId === toId && item.type === relation))
    return doc;
  return withNodes(doc, doc.metadata.nodes, [...connections, { fromId, toId, type: relation }]);
}

export function setChainInfo(doc: ChainDoc, info: Partial<ChainDoc['ruleChain']>): ChainDoc {
  return { ...doc, ruleChain: { ...doc.ruleChain, ...info } };
}

/**
 * What a server validation error names: a node (with the configuration field its path names) or a
 * connection. `detail` is the message without the chain and node it names (shown at the node),
 * `fieldDetail` without the field's path too (shown under the field).
 */
export type ErrorTarget =
  | {
      kind: 'node';
      nodeId: string;
      field: string | undefined;
      message: string;
      detail: string;
      fieldDetail: string;
    }
  | { kind: 'connection'; fromId: string; toId: string; message: string };

export function errorTarget(message: string): ErrorTarget | undefined {
  const node = /node "([^"]+)"(?::\s*([\w.[\]]+):)?/.exec(message);
  if (node?.[1]) {
    const path = node[2] ?? '';
    const field = /^configuration\.(\w+)/.exec(path)?.[1];
    const detail = message.slice(node.index + `node "${node[1]}"`.length).replace(/^:\s*/, '');
    const fieldDetail = path ? detail.slice(path.length).replace(/^:\s*/, '') : detail;
    return { kind: 'node', nodeId: node[1], field, message, detail, fieldDetail };
  }
  // A secret's path: metadata.nodes.[id=mail].configuration.password: ...
  const secret = /nodes\.\[id=([^\]]+)\]\.configuration\.(\w+):\s*/.exec(message);
  if (secret?.[1]) {
    const fieldDetail = message.slice(secret.index + secret[0].length);
    const detail = `configuration.${secret[2]}: ${fieldDetail}`;
    return { kind: 'node', nodeId: secret[1], field: secret[2], message, detail, fieldDetail };
  }
  const connection = /connection "([^"]+)" -> "([^"]+)"/.exec(message);
  if (connection?.[1] && connection[2])
    return { kind: 'connection', fromId: connection[1], toId: connection[2], message };
  return undefined;
}
