import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { createGlobTool } from '../../src/tools/glob.ts';
import { createGrepTool } from '../../src/tools/grep.ts';
import { createWorkspaceFixture } from './workspace-fixture.ts';
import type { WorkspaceFixture } from './workspace-fixture.ts';

const outsideRefusal = (error: unknown): boolean =>
  error instanceof AppError && error.message === 'path outside workspace';

describe('glob tool', () => {
  let fixture: WorkspaceFixture;
  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });
  afterEach(() => fixture.cleanup());

  it('lists every file, sorted and workspace-relative, listing links without following them', async () => {
    const text = await createGlobTool().execute({ pattern: '**/*' }, fixture.context());
    assert.deepEqual(text.split('\n'), [
      'README.md',
      'dangling',
      'escape',
      'notes/todo.md',
      'secret-link',
      'src/lib/util.ts',
      'src/main.ts',
    ]);
  });

  it('matches by pattern and searches below a path', async () => {
    const glob = createGlobTool();
    assert.equal(
      await glob.execute({ pattern: 'src/**/*.ts' }, fixture.context()),
      'src/lib/util.ts\nsrc/main.ts',
    );
    assert.equal(
      await glob.execute({ pattern: '*.ts', path: 'src/lib' }, fixture.context()),
      'src/lib/util.ts',
    );
    assert.equal(await glob.execute({ pattern: '*.{md,txt}' }, fixture.context()), 'README.md');
    assert.equal(await glob.execute({ pattern: '*.py' }, fixture.context()), 'no files match *.py');
    assert.equal(
      await glob.execute({ pattern: join(fixture.workspace, 'src', '*.ts') }, fixture.context()),
      'src/main.ts',
    );
  });

  it('skips .git and node_modules unless the pattern names them', async () => {
    await mkdir(join(fixture.workspace, 'node_modules', 'pkg'), { recursive: true });
    await writeFile(join(fixture.workspace, 'node_modules', 'pkg', 'index.js'), '');
    const glob = createGlobTool();
    assert.equal(await glob.execute({ pattern: '**/*.js' }, fixture.context()), 'no files match **/*.js');
    assert.equal(
      await glob.execute({ pattern: 'node_modules/**/*.js' }, fixture.context()),
      'node_modules/pkg/index.js',
    );
  });

  it('caps the number of results', async () => {
    for (let index = 0; index < 30; index += 1)
      await writeFile(join(fixture.workspace, `file-${index}.log`), '');
    const text = await createGlobTool({ maxResults: 10 }).execute({ pattern: '*.log' }, fixture.context());
    const lines = text.split('\n');
    assert.equal(lines.length, 11);
    assert.equal(lines.at(-1), '[20 more not shown; narrow the pattern]');
  });

  it('answers a pathological pattern promptly', async () => {
    // Checked one at a time, so a backtracking matcher fails after seconds rather than minutes.
    const cases: Array<[string, string]> = [
      ['*a*a*a*a*a*a*a*a*b', 'a'.repeat(50)],
      [`${'*a'.repeat(20)}*b`, 'a'.repeat(60)],
    ];
    const glob = createGlobTool();
    for (const [pattern, name] of cases) {
      await writeFile(join(fixture.workspace, name), '');
      const started = performance.now();
      assert.equal(await glob.execute({ pattern }, fixture.context()), `no files match ${pattern}`);
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 1000, `${pattern} took ${Math.round(elapsed)} ms`);
    }
  });

  it('refuses a glob longer than the cap', async () => {
    await assert.rejects(
      createGlobTool().execute({ pattern: '*'.repeat(5000) }, fixture.context()),
      (error: unknown) =>
        error instanceof AppError &&
        error.kind === 'invalid' &&
        error.message.startsWith('glob pattern too long'),
    );
  });

  it('refuses to search outside the workspace', async () => {
    const glob = createGlobTool();
    await assert.rejects(glob.execute({ pattern: '*', path: '..' }, fixture.context()), outsideRefusal);
    await assert.rejects(glob.execute({ pattern: '*', path: 'escape' }, fixture.context()), outsideRefusal);
    await assert.rejects(glob.execute({ pattern: '../outside/*' }, fixture.context()), outsideRefusal);
    await assert.rejects(glob.execute({ pattern: '/etc/*' }, fixture.context()), outsideRefusal);
  });
});

describe('grep tool', () => {
  let fixture: WorkspaceFixture;
  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });
  afterEach(() => fixture.cleanup());

  it('finds matching lines as path:line: text', async () => {
    const text = await createGrepTool().execute({ pattern: 'util\\(' }, fixture.context());
    assert.equal(
      text,
      'src/lib/util.ts:1: export function util(): string {\nsrc/main.ts:2: console.log(util());',
    );
  });

  it('filters by path, glob and case', async () => {
    const grep = createGrepTool();
    assert.equal(
      await grep.execute({ pattern: 'hello', ignoreCase: true }, fixture.context()),
      'README.md:3: Hello world.',
    );
    assert.equal(await grep.execute({ pattern: 'hello' }, fixture.context()), 'no matches for hello');
    assert.equal(
      await grep.execute({ pattern: 'util', glob: '*.md' }, fixture.context()),
      'no matches for util',
    );
    assert.equal(
      await grep.execute({ pattern: 'ship', path: 'notes' }, fixture.context()),
      'notes/todo.md:2: - ship',
    );
    assert.equal(
      await grep.execute({ pattern: 'ship', path: 'notes/todo.md' }, fixture.context()),
      'notes/todo.md:2: - ship',
    );
    assert.equal(
      await grep.execute({ pattern: 'export', glob: 'src/lib/*.ts' }, fixture.context()),
      'src/lib/util.ts:1: export function util(): string {',
    );
  });

  it('filters by a pathological glob promptly', async () => {
    await writeFile(join(fixture.workspace, 'a'.repeat(50)), 'needle\n');
    await writeFile(join(fixture.workspace, `${'a'.repeat(59)}b`), 'needle\n');
    const grep = createGrepTool();
    for (const glob of ['*a*a*a*a*a*a*a*a*b', `${'*a'.repeat(20)}*b`]) {
      const started = performance.now();
      assert.equal(
        await grep.execute({ pattern: 'needle', glob }, fixture.context()),
        `${'a'.repeat(59)}b:1: needle`,
      );
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 1000, `${glob} took ${Math.round(elapsed)} ms`);
    }
  });

  it('never reads through links out of the workspace', async () => {
    const grep = createGrepTool();
    assert.equal(await grep.execute({ pattern: 'SECRET' }, fixture.context()), 'no matches for SECRET');
    await assert.rejects(
      grep.execute({ pattern: 'SECRET', path: 'secret-link' }, fixture.context()),
      outsideRefusal,
    );
    await assert.rejects(
      grep.execute({ pattern: 'SECRET', path: '../outside' }, fixture.context()),
      outsideRefusal,
    );
  });

  it('skips binary and oversized files and caps matches', async () => {
    await writeFile(
      join(fixture.workspace, 'blob.bin'),
      Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]),
    );
    await writeFile(join(fixture.workspace, 'huge.txt'), `needle\n${'x'.repeat(2_000)}`);
    await writeFile(join(fixture.workspace, 'many.txt'), 'needle\n'.repeat(50));
    const text = await createGrepTool({ maxMatches: 5, maxFileBytes: 1_000 }).execute(
      { pattern: 'needle' },
      fixture.context(),
    );
    const lines = text.split('\n');
    assert.equal(lines.length, 6);
    assert.ok(lines.slice(0, 5).every((line) => line.startsWith('many.txt:')));
    assert.equal(lines[5], '[stopped at 5 matches; narrow the search]');
  });

  it('stops a catastrophic regex at the time limit instead of hanging', async () => {
    await writeFile(join(fixture.workspace, 'evil.txt'), `${'a'.repeat(40)}!\n`);
    const started = Date.now();
    await assert.rejects(
      createGrepTool({ timeoutMs: 300 }).execute({ pattern: '^(a+)+$' }, fixture.context()),
      (error: unknown) => error instanceof AppError && error.kind === 'timeout',
    );
    assert.ok(Date.now() - started < 3_000);
  });

  it('refuses an invalid regular expression', async () => {
    await assert.rejects(
      createGrepTool().execute({ pattern: '(unclosed' }, fixture.context()),
      (error: unknown) =>
        error instanceof AppError &&
        error.kind === 'invalid' &&
        /invalid regular expression/.test(error.message),
    );
  });
});
