import { lstat, realpath, stat } from 'node:fs/promises';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { compileGlob } from './glob-pattern.ts';
import { searchFiles } from './grep-worker.ts';
import { toolFactory } from './tool-arguments.ts';
import { limitField } from './tool-config.ts';
import { foldersToSkip, walkFiles } from './walk-files.ts';
import type { WalkedFile } from './walk-files.ts';
import { resolveInWorkspace, workspaceRelative } from './workspace-path.ts';

export const grepConfigSchema = z.object({
  maxMatches: limitField(1, 200, 'Match cap', 'Searching stops after this many matching lines.'),
  maxFileBytes: limitField(1, 1024 * 1024, 'File size cap (bytes)', 'Larger files are skipped.'),
  timeoutMs: limitField(
    100,
    10_000,
    'Time limit (ms)',
    'A search running longer (say, a runaway pattern) is stopped.',
  ),
});

export type GrepConfig = z.input<typeof grepConfigSchema>;

// Upper bound on files handed to one search, so a vast tree cannot make the file list itself huge.
const MAX_FILES = 20_000;

const grepArguments = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression searched for in each line'),
  path: z.string().optional().describe('File or folder to search, relative to the workspace (default: all)'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.md"'),
  ignoreCase: z.boolean().optional().describe('Match case-insensitively'),
});

/** Regex search over workspace text files; the matching runs in a worker that a time limit can stop. */
export const createGrepTool = toolFactory({
  name: 'grep',
  description:
    'Search file contents in the workspace with a regular expression. Returns "path:line: text" for each matching line.',
  arguments: grepArguments,
  configSchema: grepConfigSchema,
  async execute({ pattern, path = '.', glob, ignoreCase = false }, context, settings) {
    const flags = ignoreCase ? 'i' : '';
    try {
      new RegExp(pattern, flags);
    } catch (error) {
      throw new AppError('invalid', `invalid regular expression: ${(error as Error).message}`);
    }
    const root = await realpath(context.workspaceDir);
    const target = await resolveInWorkspace(root, path, { mustExist: true });
    const files = await candidateFiles(root, target, glob, settings.maxFileBytes, context.signal);
    const result = await searchFiles({
      files: files.map((file) => ({ path: file.path, name: workspaceRelative(root, file.path) })),
      source: pattern,
      flags,
      maxMatches: settings.maxMatches,
      maxFileBytes: settings.maxFileBytes,
      timeoutMs: settings.timeoutMs,
      signal: context.signal,
    });
    if (result.timedOut) {
      throw new AppError(
        'timeout',
        `grep stopped after ${settings.timeoutMs} ms; narrow the path or glob, or simplify the pattern`,
      );
    }
    if (result.matches.length === 0) return `no matches for ${pattern}`;
    const lines = result.matches.map((match) => `${match.name}:${match.line}: ${match.text}`);
    if (result.capped) lines.push(`[stopped at ${settings.maxMatches} matches; narrow the search]`);
    return lines.join('\n');
  },
});

// Regular files only (the worker checks again as it opens them), inside the workspace, under the
// size cap; links are skipped since their target may lie outside.
async function candidateFiles(
  root: string,
  target: string,
  glob: string | undefined,
  maxFileBytes: number,
  signal: AbortSignal,
): Promise<WalkedFile[]> {
  const matcher = glob === undefined ? undefined : compileGlob(glob);
  const byName = glob !== undefined && !glob.includes('/');
  const info = await stat(target);
  if (!info.isDirectory()) {
    const name = workspaceRelative(root, target);
    if (!info.isFile()) throw new AppError('invalid', `${name} is not a regular file`);
    return info.size <= maxFileBytes ? [{ path: target, relativePath: name, symlink: false }] : [];
  }
  const files: WalkedFile[] = [];
  for await (const file of walkFiles(target, { signal, skipFolders: foldersToSkip(glob ?? '') })) {
    if (file.symlink) continue;
    if (matcher) {
      const subject = byName
        ? (file.relativePath.split('/').pop() ?? '')
        : workspaceRelative(root, file.path);
      if (!matcher.test(subject)) continue;
    }
    const entry = await lstat(file.path).catch(() => undefined);
    if (!entry?.isFile() || entry.size > maxFileBytes) continue;
    files.push(file);
    if (files.length >= MAX_FILES) break;
  }
  return files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}
