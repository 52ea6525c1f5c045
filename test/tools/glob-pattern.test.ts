import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGlob, globBase } from '../../src/tools/glob-pattern.ts';

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

  it('finds the literal folder a pattern starts in', () => {
    assert.equal(globBase('src/lib/**/*.ts'), 'src/lib');
    assert.equal(globBase('**/*.ts'), '');
    assert.equal(globBase('README.md'), '');
    assert.equal(globBase('docs/{a,b}/x.md'), 'docs');
  });
});
