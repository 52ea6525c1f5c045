// No file of the product (src/) or of the web UI (web/src/) passes 450 lines: a file that long
// holds more than one responsibility and is split by them (README, Layout).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const LIMIT = 450;

function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Lines of a file as an editor counts them (a final newline does not start a line). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('file sizes', () => {
  it(`no file in src/ or web/src/ is over ${LIMIT} lines`, () => {
    const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'web', 'src'))];
    assert.ok(files.length > 300, 'the sources were read');
    const over = files
      .map((path) => ({ file: relative(ROOT, path), lines: lineCount(readFileSync(path, 'utf8')) }))
      .filter((entry) => entry.lines > LIMIT);
    assert.deepEqual(over, []);
  });

  it('counts lines as an editor does', () => {
    assert.equal(lineCount(''), 0);
    assert.equal(lineCount('a'), 1);
    assert.equal(lineCount('a\n'), 1);
    assert.equal(lineCount('a\nb\n'), 2);
    assert.equal(lineCount(`${'x\n'.repeat(LIMIT + 1)}`), LIMIT + 1);
  });
});
