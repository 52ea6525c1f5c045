// Which local files the outbound endpoints may send: only regular files inside an agent's
// workspace, named "<agentId>:<path inside that workspace>" (e.g. "main:reports/chart.png"). The path
// is resolved after following links; anything outside the workspace, a missing agent or file, or a
// folder is refused. Nothing else on the disk (config, data root, secrets) can be sent.
import { realpath, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { AppError, invalid } from '../core/errors.ts';
import { ID_PATTERN } from '../core/id-schema.ts';
import { openRegularFile } from '../core/open-regular-file.ts';
import { resolveInWorkspace } from '../tools/workspace-path.ts';

export interface WorkspaceAccess {
  /** Throws not-found for an unknown agent. */
  requireAgent(agentId: string): void;
  workspace(agentId: string): Promise<string>;
}

export interface LocalFile {
  /** The file's bytes, read through the handle that was checked (see readChecked). */
  data: Blob;
  fileName: string;
}

/** Cleans a file name for the recipient: no folders, no control characters, at most 255 characters. */
export function safeFileName(name: string): string {
  const cleaned = basename(name.replaceAll('\\', '/'))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, 255);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

export async function resolveOutboundFile(
  access: WorkspaceAccess,
  field: string,
  spec: string,
  maxBytes: number,
  fileName?: string,
): Promise<LocalFile> {
  const colon = spec.indexOf(':');
  const agentId = colon > 0 ? spec.slice(0, colon) : '';
  const relative = colon > 0 ? spec.slice(colon + 1) : '';
  if (!ID_PATTERN.test(agentId) || relative === '') {
    throw invalid(`${field} must be "<agentId>:<path inside that agent's workspace>"`);
  }
  access.requireAgent(agentId);
  const path = await resolveInWorkspace(await access.workspace(agentId), relative, { mustExist: true });
  const data = await readChecked(field, path, maxBytes);
  return { data, fileName: safeFileName(fileName ?? basename(path)) };
}

/**
 * Reads the file at `path` (already resolved inside the workspace) through one handle, and only if
 * that handle is still the file the path names: a folder swapped for a link between the check and
 * the read (by an agent's shell, say) would otherwise let the read leave the workspace. The handle
 * is a regular file's, opened without waiting on a FIFO (see openRegularFile).
 */
async function readChecked(field: string, path: string, maxBytes: number): Promise<Blob> {
  const { handle, info } = await openRegularFile(path, field).catch((error: unknown) => {
    throw error instanceof AppError ? error : invalid(`${field}: the file cannot be opened`);
  });
  try {
    if (info.size === 0) throw invalid(`${field}: the file is empty`);
    if (info.size > maxBytes)
      throw new AppError('too-large', `${field}: the file is larger than ${maxBytes} bytes`);
    const named = await stat(await realpath(path)).catch(() => undefined);
    if (!named || named.ino !== info.ino || named.dev !== info.dev) {
      throw invalid(`${field}: the file changed while it was being read`);
    }
    const bytes = await handle.readFile();
    return new Blob([bytes]);
  } finally {
    await handle.close();
  }
}
