import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { walkFiles } from '../../src/tools/walk-files.ts';

function busyFor(milliseconds: number): void {
  const end = performance.now() + milliseconds;
  while (performance.now() < end) {
    // stands for slow per-entry work of the caller, such as matching a glob
  }
}

describe('walkFiles', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'walk-files-'));
    for (const name of ['a', 'b', 'c', 'd']) await writeFile(join(folder, name), '');
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('gives the event loop a turn while a slow caller works through one folder', async () => {
    let ranBeforeEnd = false;
    const seen: string[] = [];
    for await (const file of walkFiles(folder, { signal: new AbortController().signal })) {
      // Scheduled after the folder was read, so only a turn given by the walk itself can run it.
      if (seen.length === 0) setImmediate(() => (ranBeforeEnd = seen.length < 4));
      seen.push(file.relativePath);
      busyFor(30);
    }
    assert.equal(seen.length, 4);
    assert.equal(ranBeforeEnd, true);
  });
});
