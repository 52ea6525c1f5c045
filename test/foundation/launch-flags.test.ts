import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const root = new URL('../../', import.meta.url);

describe('launch flags', () => {
  it('npm start and the program run node with the same flags', () => {
    const shebang = readFileSync(new URL('bin/agent-service.mjs', root), 'utf8').split('\n')[0] ?? '';
    const fromShebang = /^#!\/usr\/bin\/env -S node(.*)$/u.exec(shebang)?.[1]?.trim().split(/\s+/u);
    assert.ok(fromShebang, `unexpected first line: ${shebang}`);
    const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: { start: string };
    };
    const words = manifest.scripts.start.split(/\s+/u);
    assert.equal(words[0], 'node');
    const program = words.indexOf('bin/agent-service.mjs');
    assert.ok(program > 0, manifest.scripts.start);
    assert.deepEqual(words.slice(1, program), fromShebang);
    assert.ok(fromShebang.includes('--max-semi-space-size=8'));
  });
});
