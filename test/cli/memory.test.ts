// `agent-service memory search | files | compact` against a live server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cli, startTestServer, type TestServer } from './cli-harness.ts';

describe('agent-service memory', () => {
  let t: TestServer;
  const run = (...args: string[]) => cli([...args, '--url', t.url], t.home);
  before(async () => {
    t = await startTestServer('security:\n  requireAuth: false\n');
  });
  after(() => t.close());

  it('search finds a note written through the workspace, lists files, and reports an empty compaction', async () => {
    const put = await cli(
      ['workspace', 'put', 'memory/2026-11-20.md', '-a', 'main', '--url', t.url],
      t.home,
      {
        stdin: '# Orders\n\n- 客户的订单号是 A-7731\n- Dana prefers invoices by e-mail\n',
      },
    );
    assert.equal(put.code, 0, put.err);
    const found = await run('memory', 'search', '订单号', '-a', 'main');
    assert.equal(found.code, 0, found.err);
    assert.match(
      found.out,
      /^memory\/2026-11-20\.md:3-3 {2}\(score [\d.]+\)\n {2}- 客户的订单号是 A-7731\n?$/,
    );
    const json = JSON.parse((await run('memory', 'search', 'Dana invoices', '--json')).out) as Array<{
      startLine: number;
    }>;
    assert.equal(json[0]?.startLine, 4);
    assert.match((await run('memory', 'search', 'Zebedee')).out, /^no results\n?$/);
    assert.match((await run('memory', 'files')).out, /memory\/2026-11-20\.md/);
    const compact = await run('memory', 'compact', 'nope');
    assert.equal(compact.code, 1);
    assert.match(compact.err, /session "nope" of agent "main" not found/);
  });
});
