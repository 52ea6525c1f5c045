// `agent-service usage`: the usage of a real server as a table and as JSON, and its errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { cli, startTestServer, type TestServer } from './cli-harness.ts';

describe('agent-service usage', () => {
  let upstream: FakeUpstream;
  let server: TestServer;

  before(async () => {
    upstream = await startFakeUpstream({
      usage: () => ({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 }),
    });
    server = await startTestServer(
      `server:\n  host: 127.0.0.1\ndata:\n  root_dir: ./data\nmodels:\n  default_provider: fake\n  providers:\n` +
        `    fake:\n      base_url: ${upstream.url}\n      model: m\n      pricing: { input: 1, output: 5 }\n`,
    );
    for (let call = 0; call < 2; call += 1) {
      const response = await fetch(`${server.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(response.status, 200);
    }
  });
  after(async () => {
    await server?.close();
    await upstream?.close();
  });

  it('--json prints the answer of GET /usage', async () => {
    const run = await cli(['usage', '--json', '--by', 'channel', '--url', server.url], server.home);
    assert.equal(run.code, 0, run.err);
    const answer = JSON.parse(run.out);
    assert.equal(answer.totals.calls, 2);
    assert.equal(answer.totals.inputTokens, 2000);
    assert.equal(answer.totals.outputTokens, 400);
    assert.equal(answer.totals.cost, 0.004);
    assert.deepEqual(
      answer.groups.map((group: { key: string }) => group.key),
      ['api'],
    );
  });

  it('prints a row per agent and a total, tab-separated when piped', async () => {
    const run = await cli(['usage', '--url', server.url], server.home);
    assert.equal(run.code, 0, run.err);
    const lines = run.out.trim().split('\n');
    assert.match(lines[0] ?? '', /to .* \(.+\)$/);
    assert.deepEqual(lines.slice(1), [
      ['main', '2', '0', '2000', '0', '400', '0', '2400', '$0.0040'].join('\t'),
      ['total', '2', '0', '2000', '0', '400', '0', '2400', '$0.0040'].join('\t'),
    ]);
  });

  it('refuses an unknown group (exit 2) and reports a bad date from the server (exit 1)', async () => {
    const wrong = await cli(['usage', '--by', 'planet', '--url', server.url], server.home);
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /use one of agent, provider, model, channel, account, user, day/);
    const bad = await cli(['usage', '--from', 'yesterday', '--url', server.url], server.home);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /from: use a day/);
  });
});
