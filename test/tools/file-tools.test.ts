import assert from 'node:assert/strict';
import { readFile, stat, symlink, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { createEditTool } from '../../src/tools/edit.ts';
import { createReadTool } from '../../src/tools/read.ts';
import { createWriteTool } from '../../src/tools/write.ts';
import { createWorkspaceFixture } from './workspace-fixture.ts';
import type { WorkspaceFixture } from './workspace-fixture.ts';

const outsideRefusal = (error: unknown): boolean =>
  error instanceof AppError && error.message === 'path outside workspace';

describe('read tool', () => {
  let fixture: WorkspaceFixture;
  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });
  afterEach(() => fixture.cleanup());

  it('returns numbered lines', async () => {
    const text = await createReadTool().execute({ path: 'README.md' }, fixture.context());
    assert.equal(text, '     1\t# Demo\n     2\t\n     3\tHello world.');
  });

  it('returns plain text when line numbers are off', async () => {
    const text = await createReadTool({ lineNumbers: false }).execute(
      { path: 'notes/todo.md' },
      fixture.context(),
    );
    assert.equal(text, '- write tests\n- ship');
  });

  it('pages with offset and limit and says how to continue', async () => {
    const lines = Array.from({ length: 50 }, (_, index) => `line ${index + 1}`).join('\n');
    await writeFile(join(fixture.workspace, 'long.txt'), `${lines}\n`);
    const text = await createReadTool().execute(
      { path: 'long.txt', offset: 10, limit: 3 },
      fixture.context(),
    );
    assert.equal(
      text,
      '    10\tline 10\n    11\tline 11\n    12\tline 12\n[more lines follow; continue with offset=13]',
    );
    const end = await createReadTool().execute({ path: 'long.txt', offset: 49, limit: 5 }, fixture.context());
    assert.equal(end, '    49\tline 49\n    50\tline 50');
    const past = await createReadTool().execute({ path: 'long.txt', offset: 80 }, fixture.context());
    assert.match(past, /has 50 lines; offset 80 is past the end/);
  });

  it('cuts very long lines and stops at the output cap', async () => {
    await writeFile(join(fixture.workspace, 'wide.txt'), `${'x'.repeat(100_000)}\nshort\n`);
    const text = await createReadTool().execute({ path: 'wide.txt' }, fixture.context());
    assert.ok(text.length < 2_100, `got ${text.length} characters`);
    assert.match(text, /line truncated/);
    assert.match(text, /2\tshort$/);
    await writeFile(join(fixture.workspace, 'big.txt'), `${'y'.repeat(1000)}\n`.repeat(5000));
    const capped = await createReadTool({ maxOutputBytes: 4096 }).execute(
      { path: 'big.txt' },
      fixture.context(),
    );
    assert.ok(capped.length < 6_000);
    assert.match(capped, /continue with offset=/);
  });

  it('does not print binary files', async () => {
    await writeFile(join(fixture.workspace, 'image.png'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    assert.equal(
      await createReadTool().execute({ path: 'image.png' }, fixture.context()),
      '(binary file, 5 bytes; not shown)',
    );
  });

  it('refuses paths outside the workspace: ../, absolute and symlinks', async () => {
    const read = createReadTool();
    await assert.rejects(read.execute({ path: '../outside/secret.txt' }, fixture.context()), outsideRefusal);
    await assert.rejects(
      read.execute({ path: join(fixture.outside, 'secret.txt') }, fixture.context()),
      outsideRefusal,
    );
    await assert.rejects(read.execute({ path: '/etc/passwd' }, fixture.context()), outsideRefusal);
    await assert.rejects(read.execute({ path: 'secret-link' }, fixture.context()), outsideRefusal);
    await assert.rejects(read.execute({ path: 'escape/secret.txt' }, fixture.context()), outsideRefusal);
  });

  it('reports missing files, folders and bad arguments', async () => {
    const read = createReadTool();
    await assert.rejects(
      read.execute({ path: 'nope.txt' }, fixture.context()),
      (error: unknown) => (error as AppError).kind === 'not-found',
    );
    await assert.rejects(read.execute({ path: 'src' }, fixture.context()), /is a directory/);
    await assert.rejects(read.execute({ path: 42 }, fixture.context()), /invalid arguments for read: path:/);
  });
});

describe('write tool', () => {
  let fixture: WorkspaceFixture;
  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });
  afterEach(() => fixture.cleanup());

  it('creates missing parent folders and writes the content', async () => {
    const result = await createWriteTool().execute(
      { path: 'out/deep/file.txt', content: 'héllo' },
      fixture.context(),
    );
    assert.equal(result, 'wrote 6 bytes to out/deep/file.txt');
    assert.equal(await readFile(join(fixture.workspace, 'out', 'deep', 'file.txt'), 'utf8'), 'héllo');
  });

  it('replaces a file and keeps its mode', async () => {
    const script = join(fixture.workspace, 'run.sh');
    await writeFile(script, 'old');
    await chmod(script, 0o755);
    await createWriteTool().execute({ path: 'run.sh', content: 'echo new' }, fixture.context());
    assert.equal(await readFile(script, 'utf8'), 'echo new');
    assert.equal((await stat(script)).mode & 0o777, 0o755);
  });

  it('refuses to write outside the workspace, through links too', async () => {
    const write = createWriteTool();
    await assert.rejects(
      write.execute({ path: '../evil.txt', content: 'x' }, fixture.context()),
      outsideRefusal,
    );
    await assert.rejects(
      write.execute({ path: '/tmp/evil.txt', content: 'x' }, fixture.context()),
      outsideRefusal,
    );
    await assert.rejects(
      write.execute({ path: 'escape/evil.txt', content: 'x' }, fixture.context()),
      outsideRefusal,
    );
    await assert.rejects(
      write.execute({ path: 'dangling', content: 'x' }, fixture.context()),
      outsideRefusal,
    );
    await assert.rejects(stat(join(fixture.outside, 'new.txt')), { code: 'ENOENT' });
    assert.equal(await readFile(join(fixture.outside, 'secret.txt'), 'utf8'), 'TOP SECRET\n');
  });

  it('refuses content over the size cap', async () => {
    await assert.rejects(
      createWriteTool({ maxBytes: 10 }).execute(
        { path: 'a.txt', content: 'x'.repeat(11) },
        fixture.context(),
      ),
      (error: unknown) => error instanceof AppError && error.kind === 'too-large',
    );
  });
});

describe('edit tool', () => {
  let fixture: WorkspaceFixture;
  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });
  afterEach(() => fixture.cleanup());

  it('replaces one exact occurrence', async () => {
    const result = await createEditTool().execute(
      { path: 'README.md', oldText: 'Hello world.', newText: 'Hello $& there.' },
      fixture.context(),
    );
    assert.equal(result, 'replaced 1 occurrence in README.md');
    assert.equal(await readFile(join(fixture.workspace, 'README.md'), 'utf8'), '# Demo\n\nHello $& there.\n');
  });

  it('refuses text that is missing or ambiguous, and replaces all when asked', async () => {
    const edit = createEditTool();
    await writeFile(join(fixture.workspace, 'twice.txt'), 'a-b-a');
    await assert.rejects(
      edit.execute({ path: 'twice.txt', oldText: 'zzz', newText: 'y' }, fixture.context()),
      /was not found/,
    );
    await assert.rejects(
      edit.execute({ path: 'twice.txt', oldText: 'a', newText: 'y' }, fixture.context()),
      /occurs 2 times/,
    );
    assert.equal(await readFile(join(fixture.workspace, 'twice.txt'), 'utf8'), 'a-b-a');
    const result = await edit.execute(
      { path: 'twice.txt', oldText: 'a', newText: 'y', replaceAll: true },
      fixture.context(),
    );
    assert.equal(result, 'replaced 2 occurrences in twice.txt');
    assert.equal(await readFile(join(fixture.workspace, 'twice.txt'), 'utf8'), 'y-b-y');
  });

  it('refuses files outside the workspace', async () => {
    const edit = createEditTool();
    await assert.rejects(
      edit.execute({ path: 'secret-link', oldText: 'TOP', newText: 'NO' }, fixture.context()),
      outsideRefusal,
    );
    await assert.rejects(
      edit.execute({ path: '../outside/secret.txt', oldText: 'TOP', newText: 'NO' }, fixture.context()),
      outsideRefusal,
    );
    await symlink('/etc/hostname', join(fixture.workspace, 'hostname'));
    await assert.rejects(
      edit.execute({ path: 'hostname', oldText: 'a', newText: 'b' }, fixture.context()),
      outsideRefusal,
    );
    assert.equal(await readFile(join(fixture.outside, 'secret.txt'), 'utf8'), 'TOP SECRET\n');
  });
});
