// How a memory file is cut for the index: one chunk per list item or paragraph (at most 8 lines),
// so a hit points at the fact rather than at a page. Each chunk carries its heading, which often
// names who or what the lines are about. Pure functions, shared by the index and the benchmarks.

export interface MemoryChunk {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The chunk's lines, then its heading in brackets when it has one. */
  text: string;
}

const MAX_LINES = 8;
const HEADING = /^#{1,6}\s+(.*)$/;
const ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
/** memory/YYYY-MM-DD.md (or a name starting with the date). */
const DATED = /^memory\/(\d{4})-(\d{2})-(\d{2})/;

export function chunkMarkdown(content: string): MemoryChunk[] {
  const lines = content.split(/\r?\n/);
  const chunks: MemoryChunk[] = [];
  let heading = '';
  let start = -1;
  const close = (end: number): void => {
    if (start < 0) return;
    const body = lines.slice(start, end + 1).join('\n');
    chunks.push({ startLine: start + 1, endLine: end + 1, text: heading ? `${body}\n[${heading}]` : body });
    start = -1;
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const title = HEADING.exec(line);
    if (title) {
      close(index - 1);
      heading = (title[1] ?? '').trim();
      continue;
    }
    if (line.trim() === '') {
      close(index - 1);
      continue;
    }
    if (start >= 0 && (ITEM.test(line) || index - start >= MAX_LINES)) close(index - 1);
    if (start < 0) start = index;
  }
  close(lines.length - 1);
  return chunks;
}

/** The lines of a chunk without the heading the index adds. */
export function chunkSnippet(text: string, startLine: number, endLine: number): string {
  return text
    .split('\n')
    .slice(0, endLine - startLine + 1)
    .join('\n');
}

/** The day a dated note is about (UTC midnight, ms), or undefined for other files. */
export function noteDay(path: string): number | undefined {
  const match = DATED.exec(path);
  if (!match) return undefined;
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(time) ? undefined : time;
}

/** Whether a workspace-relative path is a memory file: MEMORY.md or a Markdown file directly in memory/. */
export function isMemoryPath(path: string): boolean {
  return path === 'MEMORY.md' || /^memory\/[^/]+\.md$/.test(path);
}

/** YYYY-MM-DD of a time, in UTC. */
export function dayOf(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
