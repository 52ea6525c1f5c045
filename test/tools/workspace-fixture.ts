import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '../../src/tools/types.ts';

export interface WorkspaceFixture {
  /** Real path of a fresh workspace folder. */
  workspace: string;
  /** Real path of a folder beside it, standing for everything outside (config, data root). */
  outside: string;
  context(signal?: AbortSignal): ToolContext;
  cleanup(): Promise<void>;
}

/**
 * A temporary workspace holding README.md, src/main.ts, src/lib/util.ts and notes/todo.md, plus an
 * outside folder with secret.txt, and links from the workspace out of it: escape -> outside folder,
 * secret-link -> outside/secret.txt, dangling -> outside/new.txt (missing).
 */
export async function createWorkspaceFixture(): Promise<WorkspaceFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'agent-tools-')));
  const workspace = join(base, 'workspace');
  const outside = join(base, 'outside');
  await mkdir(join(workspace, 'src', 'lib'), { recursive: true });
  await mkdir(join(workspace, 'notes'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(workspace, 'README.md'), '# Demo\n\nHello world.\n');
  await writeFile(
    join(workspace, 'src', 'main.ts'),
    "import { util } from './lib/util.ts';\nconsole.log(util());\n",
  );
  await writeFile(
    join(workspace, 'src', 'lib', 'util.ts'),
    "export function util(): string {\n  return 'util';\n}\n",
  );
  await writeFile(join(workspace, 'notes', 'todo.md'), '- write tests\n- ship\n');
  await writeFile(join(outside, 'secret.txt'), 'TOP SECRET\n');
  await symlink(outside, join(workspace, 'escape'));
  await symlink(join(outside, 'secret.txt'), join(workspace, 'secret-link'));
  await symlink(join(outside, 'new.txt'), join(workspace, 'dangling'));
  return {
    workspace,
    outside,
    context: (signal = new AbortController().signal) => ({
      signal,
      agentId: 'test-agent',
      workspaceDir: workspace,
    }),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
