// Where in the JSON text an error is: the server's 400 names the node (`node "b": configuration.x:
// ...`) or the connection (`connection "a" -> "zz": ...`); the browser's JSON.parse names a position.
import type { LineRange } from '../../ui/code-editor.tsx';

export interface ErrorPlace {
  /** The lines to mark: the node's or connection's object, or the one bad line. */
  range: LineRange;
  /** The line to put the caret on: the bad key inside the node when the path names one. */
  line: number;
  /** What the place is, for the "Go to" button (worded by the editor, in the UI's language). */
  what: { kind: 'node'; id: string } | { kind: 'connection'; from: string; to: string } | { kind: 'line' };
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset && index < text.length; index++) if (text[index] === '\n') line++;
  return line;
}

/** The start and end offsets of the innermost {...} around `offset`, skipping string contents. */
function objectAround(text: string, offset: number): { start: number; end: number } | undefined {
  const opens: number[] = [];
  let inString = false;
  let start: number | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (index === offset) start = opens.at(-1);
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') opens.push(index);
    else if (char === '}') {
      const open = opens.pop();
      if (start !== undefined && open === start) return { start, end: index };
    }
  }
  return undefined;
}

const quoted = (value: string) => JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function keyPattern(key: string, value: string): RegExp {
  return new RegExp(`"${key}"\\s*:\\s*${quoted(value)}`, 'g');
}

function rangeOf(text: string, span: { start: number; end: number }): LineRange {
  return { from: lineAt(text, span.start), to: lineAt(text, span.end) };
}

/** The object of node `nodeId` under metadata.nodes. */
function findNode(text: string, nodeId: string): { start: number; end: number } | undefined {
  const nodesAt = text.search(/"nodes"\s*:/);
  for (const match of text.matchAll(keyPattern('id', nodeId))) {
    if (nodesAt >= 0 && match.index < nodesAt) continue;
    const span = objectAround(text, match.index);
    if (span) return span;
  }
  return undefined;
}

function findConnection(
  text: string,
  fromId: string,
  toId: string,
): { start: number; end: number } | undefined {
  for (const match of text.matchAll(keyPattern('fromId', fromId))) {
    const span = objectAround(text, match.index);
    if (span && keyPattern('toId', toId).test(text.slice(span.start, span.end))) return span;
  }
  return undefined;
}

/** The place of a server validation error in the editor's text, when it names a node or connection. */
export function placeOfServerError(text: string, message: string): ErrorPlace | undefined {
  const node = /node "([^"]+)"(?::\s*([\w.[\]]+):)?/.exec(message);
  if (node?.[1]) {
    const span = findNode(text, node[1]);
    if (!span) return undefined;
    const range = rangeOf(text, span);
    // configuration.restEndpointUrlPattern: put the caret on the deepest key of the path found in the node.
    let line = range.from;
    const keys = (node[2] ?? '').split(/[.[\]]/).filter((key) => key !== '' && !/^\d+$/.test(key));
    const body = text.slice(span.start, span.end);
    for (const key of keys.reverse()) {
      const at = body.search(new RegExp(`${quoted(key)}\\s*:`));
      if (at >= 0) {
        line = lineAt(text, span.start + at);
        break;
      }
    }
    return { range, line, what: { kind: 'node', id: node[1] } };
  }
  const connection = /connection "([^"]+)" -> "([^"]+)"/.exec(message);
  if (connection?.[1] && connection[2]) {
    const span = findConnection(text, connection[1], connection[2]);
    if (!span) return undefined;
    const range = rangeOf(text, span);
    return { range, line: range.from, what: { kind: 'connection', from: connection[1], to: connection[2] } };
  }
  return undefined;
}

/** The line of a JSON.parse error ("... at position 42 (line 3 column 5)" in Chromium). */
export function placeOfParseError(text: string, message: string): ErrorPlace | undefined {
  const lineColumn = /line (\d+) column \d+/.exec(message);
  const position = /position (\d+)/.exec(message);
  const line = lineColumn?.[1]
    ? Number(lineColumn[1])
    : position?.[1]
      ? lineAt(text, Number(position[1]))
      : undefined;
  if (line === undefined) return undefined;
  return { range: { from: line, to: line }, line, what: { kind: 'line' } };
}
