import { stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { openRegularFile } from '../core/open-regular-file.ts';
import { toolFactory, filePathArgument } from './tool-arguments.ts';
import { limitField } from './tool-config.ts';
import { resolveInWorkspace } from './workspace-path.ts';

export const readConfigSchema = z.object({
  maxOutputBytes: limitField(
    1024,
    100 * 1024,
    'Output cap (bytes)',
    'Reading stops once this much text has been collected.',
  ),
  lineNumbers: z
    .boolean()
    .default(true)
    .meta({ title: 'Line numbers', description: 'Prefix each line with its number, as cat -n does.' }),
});

export type ReadConfig = z.input<typeof readConfigSchema>;

const DEFAULT_LINE_LIMIT = 2000;
const MAX_LINE_BYTES = 2000;
const CHUNK_BYTES = 64 * 1024;
const SNIFF_BYTES = 8192;

const readArguments = z.object({
  path: filePathArgument,
  offset: z.number().int().min(1).optional().describe('First line to read, counting from 1'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`How many lines to read (default ${DEFAULT_LINE_LIMIT})`),
});

/** Reads a text file of the workspace, a window of lines at a time, without loading huge files whole. */
export const createReadTool = toolFactory({
  name: 'read',
  description:
    'Read a text file from the workspace. Returns numbered lines; use offset and limit to page through long files.',
  arguments: readArguments,
  configSchema: readConfigSchema,
  async execute({ path, offset = 1, limit = DEFAULT_LINE_LIMIT }, context, settings) {
    const file = await resolveInWorkspace(context.workspaceDir, path, { mustExist: true });
    if ((await stat(file)).isDirectory()) {
      throw new AppError('invalid', `${path} is a directory; use glob to list it`);
    }
    const { handle, info } = await openRegularFile(file, path);
    try {
      const head = Buffer.alloc(Math.min(SNIFF_BYTES, info.size));
      await handle.read(head, 0, head.length, 0);
      if (head.includes(0)) return `(binary file, ${info.size} bytes; not shown)`;
      const window = await readLines(handle, offset, limit, settings.maxOutputBytes, context.signal);
      return formatWindow(window, offset, settings.lineNumbers, path);
    } finally {
      await handle.close();
    }
  },
});

interface LineWindow {
  lines: string[];
  /** True when the file has lines after the window (or the output cap cut it short). */
  more: boolean;
  /** Lines in the whole file, when reading reached its end. */
  total: number | undefined;
}

// Scans the file in chunks, keeping only lines inside the window, each cut at MAX_LINE_BYTES,
// so a huge file or a single enormous line costs bounded memory.
async function readLines(
  handle: FileHandle,
  offset: number,
  limit: number,
  maxOutputBytes: number,
  signal: AbortSignal,
): Promise<LineWindow> {
  const lines: string[] = [];
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let lineNumber = 1;
  let current: Buffer[] = [];
  let currentBytes = 0;
  let outputBytes = 0;
  let position = 0;
  const keep = (): boolean => lineNumber >= offset && lines.length < limit;
  const endLine = (): boolean => {
    if (keep()) {
      let text = Buffer.concat(current).toString('utf8').replace(/\r$/, '');
      if (currentBytes > MAX_LINE_BYTES) text += ' […line truncated]';
      lines.push(text);
      outputBytes += text.length + 8;
    }
    lineNumber += 1;
    current = [];
    currentBytes = 0;
    return lines.length >= limit || outputBytes >= maxOutputBytes;
  };
  for (;;) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let start = 0;
    while (start < bytesRead) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
      if (keep() && currentBytes < MAX_LINE_BYTES) {
        current.push(
          Buffer.from(chunk.subarray(start, Math.min(end, start + MAX_LINE_BYTES - currentBytes))),
        );
      }
      currentBytes += end - start;
      start = end + 1;
      if (end < bytesRead && endLine()) {
        const rest = await handle.read(Buffer.alloc(1), 0, 1, position - bytesRead + start);
        return { lines, more: rest.bytesRead > 0 || start < bytesRead, total: undefined };
      }
    }
  }
  if (currentBytes > 0) endLine();
  return { lines, more: false, total: lineNumber - 1 };
}

function formatWindow(window: LineWindow, offset: number, lineNumbers: boolean, path: string): string {
  if (window.lines.length === 0) {
    if (window.total === 0) return `(${path} is empty)`;
    return `(${path} has ${window.total ?? 0} lines; offset ${offset} is past the end)`;
  }
  const body = window.lines
    .map((line, index) => (lineNumbers ? `${String(offset + index).padStart(6)}\t${line}` : line))
    .join('\n');
  if (!window.more) return body;
  const next = offset + window.lines.length;
  return `${body}\n[more lines follow; continue with offset=${next}]`;
}
