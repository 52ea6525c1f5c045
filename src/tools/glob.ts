import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { compileGlob, globBase } from './glob-pattern.ts';
import { toolFactory } from './tool-arguments.ts';
import { limitField } from './tool-config.ts';
import { foldersToSkip, walkFiles } from './walk-files.ts';
import { resolveInWorkspace, workspaceRelative } from './workspace-path.ts';

export const globConfigSchema = z.object({
  maxResults: limitField(1, 1000, 'Result cap', 'Most paths returned; the rest are counted but not listed.'),
});

export type GlobConfig = z.input<typeof globConfigSchema>;

const globArguments = z.object({
  pattern: z.string().min(1).describe('Glob such as "**/*.ts", "src/*.{js,json}" or "docs/**"'),
  path: z
    .string()
    .optional()
    .describe('Folder to search, relative to the workspace (default: the whole workspace)'),
});

/** Lists workspace files whose paths match a glob, sorted, as workspace-relative paths. */
export const createGlobTool = toolFactory({
  name: 'glob',
  description:
    'Find files in the workspace by glob pattern (*, **, ?, {a,b}, [abc]). Returns matching paths relative to the workspace, sorted.',
  arguments: globArguments,
  configSchema: globConfigSchema,
  async execute({ pattern, path = '.' }, context, settings) {
    const root = await realpath(context.workspaceDir);
    const folder = await resolveInWorkspace(root, path, { mustExist: true });
    if (!(await stat(folder)).isDirectory()) throw new AppError('invalid', `${path} is not a folder`);
    const relativePattern = await relativeToFolder(root, folder, pattern);
    // Start at the pattern's literal prefix; resolving it also refuses patterns like "../x/*".
    const base = await resolveInWorkspace(root, join(folder, globBase(relativePattern)));
    const matcher = compileGlob(relativePattern);
    const skipFolders = foldersToSkip(pattern);
    const matches: string[] = [];
    const baseRelative = workspaceRelative(folder, base);
    for await (const file of walkFiles(base, { signal: context.signal, skipFolders })) {
      const fromFolder = baseRelative === '.' ? file.relativePath : `${baseRelative}/${file.relativePath}`;
      if (matcher.test(fromFolder)) matches.push(workspaceRelative(root, file.path));
    }
    if (matches.length === 0) return `no files match ${pattern}`;
    matches.sort();
    const shown = matches.slice(0, settings.maxResults);
    const hidden = matches.length - shown.length;
    return hidden > 0
      ? `${shown.join('\n')}\n[${hidden} more not shown; narrow the pattern]`
      : shown.join('\n');
  },
});

// An absolute pattern is allowed when its literal part lies in the workspace; it is rewritten
// relative to the searched folder, since walked paths are relative.
async function relativeToFolder(root: string, folder: string, pattern: string): Promise<string> {
  if (!isAbsolute(pattern)) return pattern;
  const literal = globBase(pattern) || '/';
  const real = await resolveInWorkspace(root, literal);
  const rest = pattern.slice(literal.length).replace(/^\/+/u, '');
  const prefix = workspaceRelative(folder, real);
  return prefix === '.' ? rest : `${prefix}/${rest}`;
}
