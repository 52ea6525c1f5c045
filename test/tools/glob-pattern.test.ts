import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { MAX_GLOB_LENGTH, compileGlob, globBase } from '../../src/tools/glob-pattern.ts';

function matches(pattern: string, path: string): boolean {
  return compileGlob(pattern).test(path);
}

describe('glob patterns', () => {
  it('* stays within one segment, ? matches one character', () => {
    assert.equal(matches('*.ts', 'main.ts'), true);
    assert.equal(matches('*.ts', 'src/main.ts'), false);
    assert.equal(matches('src/?.ts', 'src/a.ts'), true);
    assert.equal(matches('src/?.ts', 'src/ab.ts'), false);
    assert.equal(matches('src/?', 'src//'), false);
  });

  it('** spans any number of folders, including none', () => {
    assert.equal(matches('**/*.ts', 'main.ts'), true);
    assert.equal(matches('**/*.ts', 'src/lib/util.ts'), true);
    assert.equal(matches('src/**/*.ts', 'src/main.ts'), true);
    assert.equal(matches('src/**/*.ts', 'src/a/b/c.ts'), true);
    assert.equal(matches('src/**/*.ts', 'lib/a.ts'), false);
    assert.equal(matches('docs/**', 'docs/a/b.md'), true);
    assert.equal(matches('**', '.hidden/file'), true);
    assert.equal(matches('a**b', 'a/b'), false, '** inside a segment is a plain *');
  });

  it('{a,b} gives alternatives, nested too', () => {
    assert.equal(matches('*.{js,json}', 'package.json'), true);
    assert.equal(matches('*.{js,json}', 'index.js'), true);
    assert.equal(matches('*.{js,json}', 'index.ts'), false);
    assert.equal(matches('{src,test/{unit,e2e}}/*.ts', 'test/e2e/a.ts'), true);
    assert.equal(matches('{src,test/{unit,e2e}}/*.ts', 'test/other/a.ts'), false);
  });

  it('supports character classes and escapes, and treats regex characters literally', () => {
    assert.equal(matches('file[0-9].txt', 'file7.txt'), true);
    assert.equal(matches('file[!0-9].txt', 'file7.txt'), false);
    assert.equal(matches('file[!0-9].txt', 'fileA.txt'), true);
    assert.equal(matches('a+b(c).txt', 'a+b(c).txt'), true);
    assert.equal(matches('\\*.txt', '*.txt'), true);
    assert.equal(matches('\\*.txt', 'a.txt'), false);
    assert.equal(matches('a.txt', 'abtxt'), false);
  });

  it('reads malformed pieces literally and matches whole code points', () => {
    assert.equal(matches('a[b', 'a[b'), true, 'a [ without ] is literal');
    assert.equal(matches('[]]', ']'), true, 'a ] right after [ belongs to the class');
    assert.equal(matches('[-a]', '-'), true);
    assert.equal(matches('[!-a]', '/'), false, 'no class matches /');
    assert.equal(matches('[!-a]', 'b'), true);
    assert.equal(matches('{a,b', 'b'), true, 'an unclosed brace runs to the end');
    assert.equal(matches('x\\', 'x\\'), true);
    assert.equal(matches('?.txt', '\u{1F600}.txt'), true, '? is one character, even outside the BMP');
    assert.equal(matches('**', 'a\nb/c'), true);
  });

  it('refuses a character range out of order', () => {
    assert.throws(
      () => compileGlob('[z-a].txt'),
      (error: unknown) =>
        error instanceof AppError && error.kind === 'invalid' && /out of order/.test(error.message),
    );
  });

  it('matches patterns that make a backtracking matcher explode, at once', () => {
    // A backtracking RegExp took seconds on the first and vastly longer on the others.
    const cases: Array<[string, string]> = [
      ['*a*a*a*a*a*a*a*a*b', 'a'.repeat(50)],
      [`${'*a'.repeat(20)}*b`, 'a'.repeat(60)],
      [`${'{*a,*a}'.repeat(20)}b`, 'a'.repeat(60)],
      [`${'**/'.repeat(20)}*b`, 'a/'.repeat(30)],
    ];
    for (const [pattern, path] of cases) {
      const started = performance.now();
      assert.equal(matches(pattern, path), false);
      assert.equal(matches(pattern, `${path}b`), true);
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 1000, `${pattern} took ${Math.round(elapsed)} ms`);
    }
  });

  it('refuses a glob longer than the cap', () => {
    assert.doesNotThrow(() => compileGlob('a'.repeat(MAX_GLOB_LENGTH)));
    assert.throws(
      () => compileGlob('{a,b}'.repeat(MAX_GLOB_LENGTH)),
      (error: unknown) =>
        error instanceof AppError &&
        error.kind === 'invalid' &&
        error.message.startsWith('glob pattern too long'),
    );
  });

  it('finds the literal folder a pattern starts in', () => {
    assert.equal(globBase('src/lib/**/*.ts'), 'src/lib');
    assert.equal(globBase('**/*.ts'), '');
    assert.equal(globBase('README.md'), '');
    assert.equal(globBase('docs/{a,b}/x.md'), 'docs');
  });
});
