// The MCP conformance suite (@modelcontextprotocol/conformance, server side) against a real server:
// no unexpected failure, and no baseline entry that now passes. The baseline lists the scenarios
// that test the suite's reference-server fixtures (resources, prompts, test_* tools); see README.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const require = createRequire(import.meta.url);
const SUITE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const BASELINE = join(import.meta.dirname, 'conformance-baseline.yml');

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SUITE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance suite', () => {
  let upstream: FakeUpstream;
  let t: TestApp;

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({ listen: true, config: { models: upstream.modelsConfig() } });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('passes every server scenario outside the justified baseline', async () => {
    const { code, output } = await run([
      'server',
      '--url',
      `${t.url}/api/v1/mcp`,
      '--expected-failures',
      BASELINE,
    ]);
    assert.equal(code, 0, output.slice(-4000));
    assert.match(output, /Baseline check passed/);
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'logging-set-level',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
    ])
      assert.match(output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
  });
});
