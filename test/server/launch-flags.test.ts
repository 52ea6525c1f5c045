import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const root = new URL('../../', import.meta.url);

describe('launch flags', () => {
  it('npm start runs node with the young-generation limit the benchmarks are measured with', () => {
    const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: { start: string };
    };
    const words = manifest.scripts.start.split(/\s+/u);
    assert.equal(words[0], 'node');
    const program = words.indexOf('bin/agent-service.mjs');
    assert.ok(program > 0, manifest.scripts.start);
    assert.deepEqual(words.slice(1, program), ['--max-semi-space-size=8']);
    assert.deepEqual(words.slice(program + 1), ['serve']);
  });

  it('the program starts with a plain node shebang, which every env understands', () => {
    const shebang = readFileSync(new URL('bin/agent-service.mjs', root), 'utf8').split('\n')[0];
    assert.equal(shebang, '#!/usr/bin/env node');
  });
});
