// The server's lines on a piped standard output (pino's asynchronous destination, lines kept as
// buffers): every line arrives whole and in order, non-ASCII text included, and the lines still
// queued when the process dies of an uncaught error are written on the way out.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';

const CHILD = `
import { configSchema } from './src/config/schema.ts';
import { logDestinations } from './src/http/log-destinations.ts';
import { createLogger } from './src/http/logger.ts';
const destinations = logDestinations(configSchema.parse({}));
const logger = createLogger('info', destinations.stream);
for (let index = 0; index < 3000; index++) logger.info({ index, text: 'héllo wörld ✓ 日本' }, 'line');
throw new Error('dies with lines still queued');
`;

describe('log lines on a piped standard output', () => {
  it('arrive whole, in order, with non-ASCII text, and those queued at a crash are written', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      cwd: new URL('../..', import.meta.url),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.notEqual(code, 0, 'the child died of its error');
    assert.match(stderr, /dies with lines still queued/);
    const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n');
    assert.equal(lines.length, 3000);
    for (const [index, line] of lines.entries()) {
      const parsed = JSON.parse(line) as { index: number; text: string };
      assert.equal(parsed.index, index);
      assert.equal(parsed.text, 'héllo wörld ✓ 日本');
    }
  });
});
