import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AppError } from '../core/errors.ts';

// Symlink chains longer than this are refused, as the kernel refuses them (ELOOP).
const MAX_LINK_HOPS = 40;

export interface ResolveOptions {
  /** Refuse (not-found) when the resolved path does not exist. */
  mustExist?: boolean;
}

/**
 * Resolves a user-supplied path inside a workspace and returns its real absolute path. Links are
 * followed first (the real path of the longest existing prefix, dangling links included), so no
 * path, `..` or symlink can reach outside; anything that would is refused with "path outside workspace".
 */
export async function resolveInWorkspace(
  workspaceDir: string,
  requested: string,
  options: ResolveOptions = {},
): Promise<string> {
  if (requested.includes('\0')) throw new AppError('invalid', 'invalid path: contains a NUL byte');
  const root = await realpath(workspaceDir);
  const candidate = isAbsolute(requested) ? resolve(requested) : resolve(root, requested || '.');
  const real = await realPathOfPrefix(candidate, 0);
  if (!isInside(root, real.path)) throw new AppError('invalid', 'path outside workspace');
  if (options.mustExist && !real.exists)
    throw new AppError('not-found', `no such file or directory: ${requested}`);
  return real.path;
}

/** True when `path` is `root` itself or lies below it; both must be absolute and normalized. */
export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

interface RealPath {
  path: string;
  exists: boolean;
}

// Walks up to the longest existing prefix, takes its real path, and re-attaches the missing tail.
// A dangling link in the way is followed by hand, since realpath cannot resolve it.
async function realPathOfPrefix(path: string, hops: number): Promise<RealPath> {
  if (hops > MAX_LINK_HOPS) throw new AppError('invalid', 'too many levels of symbolic links');
  try {
    return { path: await realpath(path), exists: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new AppError('invalid', 'too many levels of symbolic links');
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const link = await lstat(path).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    const target = await readlink(path);
    const parent = await realPathOfPrefix(dirname(path), hops + 1);
    return realPathOfPrefix(resolve(parent.path, target), hops + 1);
  }
  const parentPath = dirname(path);
  if (parentPath === path) return { path, exists: false };
  const parent = await realPathOfPrefix(parentPath, hops);
  return {
    path: join(parent.path, path.slice(parentPath.length + (parentPath.endsWith(sep) ? 0 : 1))),
    exists: false,
  };
}

/** The workspace-relative form of a resolved path, with `/` separators ("." for the root itself). */
export function workspaceRelative(workspaceDir: string, path: string): string {
  const relativePath = relative(workspaceDir, path);
  return relativePath === '' ? '.' : relativePath.split(sep).join('/');
}
