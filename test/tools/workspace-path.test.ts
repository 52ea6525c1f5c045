import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { resolveInWorkspace, workspaceRelative } from '../../src/tools/workspace-path.ts';
import { createWorkspaceFixture } from './workspace-fixture.ts';
import type { WorkspaceFixture } from './workspace-fixture.ts';

function isOutside(error: unknown): boolean {
  return error instanceof AppError && error.kind === 'invalid' && error.message === 'path outside workspace';
}

describe('resolveInWorkspace', () => {
  let fixture: WorkspaceFixture;
  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });
  afterEach(() => fixture.cleanup());

  it('resolves relative paths inside the workspace', async () => {
    const { workspace } = fixture;
    assert.equal(await resolveInWorkspace(workspace, 'README.md'), join(workspace, 'README.md'));
    assert.equal(
      await resolveInWorkspace(workspace, './src/../src/main.ts'),
      join(workspace, 'src', 'main.ts'),
    );
    assert.equal(await resolveInWorkspace(workspace, ''), workspace);
    assert.equal(await resolveInWorkspace(workspace, '.'), workspace);
  });

  it('resolves a nested path that does not exist yet', async () => {
    const { workspace } = fixture;
    assert.equal(
      await resolveInWorkspace(workspace, 'new/deeper/file.txt'),
      join(workspace, 'new', 'deeper', 'file.txt'),
    );
  });

  it('refuses ../ escapes', async () => {
    await assert.rejects(resolveInWorkspace(fixture.workspace, '../outside/secret.txt'), isOutside);
    await assert.rejects(resolveInWorkspace(fixture.workspace, 'src/../../outside'), isOutside);
    await assert.rejects(resolveInWorkspace(fixture.workspace, '..'), isOutside);
  });

  it('refuses absolute paths outside and accepts absolute paths inside', async () => {
    await assert.rejects(resolveInWorkspace(fixture.workspace, '/etc/passwd'), isOutside);
    await assert.rejects(
      resolveInWorkspace(fixture.workspace, join(fixture.outside, 'secret.txt')),
      isOutside,
    );
    const inside = join(fixture.workspace, 'notes', 'todo.md');
    assert.equal(await resolveInWorkspace(fixture.workspace, inside), inside);
  });

  it('refuses a symlink to /etc and anything below it', async () => {
    await symlink('/etc', join(fixture.workspace, 'etc-link'));
    await assert.rejects(resolveInWorkspace(fixture.workspace, 'etc-link'), isOutside);
    await assert.rejects(resolveInWorkspace(fixture.workspace, 'etc-link/passwd'), isOutside);
  });

  it('refuses a new file below a symlinked parent folder that points outside', async () => {
    await assert.rejects(resolveInWorkspace(fixture.workspace, 'escape/secret.txt'), isOutside);
    await assert.rejects(resolveInWorkspace(fixture.workspace, 'escape/new/file.txt'), isOutside);
    await assert.rejects(resolveInWorkspace(fixture.workspace, 'secret-link'), isOutside);
  });

  it('refuses a dangling link whose target would be created outside', async () => {
    await assert.rejects(resolveInWorkspace(fixture.workspace, 'dangling'), isOutside);
  });

  it('follows links that stay inside the workspace', async () => {
    await symlink(join(fixture.workspace, 'src'), join(fixture.workspace, 'code'));
    await symlink('notes/todo.md', join(fixture.workspace, 'todo-link'));
    assert.equal(
      await resolveInWorkspace(fixture.workspace, 'code/main.ts'),
      join(fixture.workspace, 'src', 'main.ts'),
    );
    assert.equal(
      await resolveInWorkspace(fixture.workspace, 'todo-link'),
      join(fixture.workspace, 'notes', 'todo.md'),
    );
  });

  it('works when the workspace itself is reached through a link', async () => {
    const alias = join(fixture.outside, 'workspace-alias');
    await symlink(fixture.workspace, alias);
    assert.equal(await resolveInWorkspace(alias, 'README.md'), join(fixture.workspace, 'README.md'));
    await assert.rejects(resolveInWorkspace(alias, '../secret.txt'), isOutside);
  });

  it('refuses NUL bytes and reports missing files when they must exist', async () => {
    await assert.rejects(
      resolveInWorkspace(fixture.workspace, 'README.md\0.png'),
      (error: unknown) => error instanceof AppError && error.kind === 'invalid',
    );
    await assert.rejects(
      resolveInWorkspace(fixture.workspace, 'missing.txt', { mustExist: true }),
      (error: unknown) => error instanceof AppError && error.kind === 'not-found',
    );
  });

  it('refuses a symlink loop cleanly', async () => {
    await symlink('loop-b', join(fixture.workspace, 'loop-a'));
    await symlink('loop-a', join(fixture.workspace, 'loop-b'));
    await assert.rejects(
      resolveInWorkspace(fixture.workspace, 'loop-a/file.txt'),
      (error: unknown) => error instanceof AppError && error.kind === 'invalid',
    );
  });

  it('gives workspace-relative paths with forward slashes', async () => {
    await mkdir(join(fixture.workspace, 'a', 'b'), { recursive: true });
    await writeFile(join(fixture.workspace, 'a', 'b', 'c.txt'), 'x');
    assert.equal(
      workspaceRelative(fixture.workspace, join(fixture.workspace, 'a', 'b', 'c.txt')),
      'a/b/c.txt',
    );
    assert.equal(workspaceRelative(fixture.workspace, fixture.workspace), '.');
  });
});
