import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream } from '../fakes/fake-upstream.ts';
import { BIN, cli, cliEnv, start, startTestServer, waitFor, type TestServer } from './cli-harness.ts';

describe('agent-service agent chat', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('security:\n  requireAuth: false\n');
  });
  after(() => t.close());
  const demoModelAgain = async () => {
    assert.equal(
      (await cli(['config', 'set', 'models.default_provider', '""', '--url', t.url], t.home)).code,
      0,
    );
    assert.equal((await cli(['providers', 'delete', 'fake', '--url', t.url], t.home)).code, 0);
  };

  it('driven through stdin: streams answers with tool calls, keeps /new, /agent, /help, /exit', async () => {
    const result = await cli(['agent', 'chat', '--url', t.url], t.home, {
      stdin: '/help\nlist files\n/session\n/new\n/agent nobody\nhello\n/bogus\n/exit\nnever sent\n',
    });
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /^\/new {10}start a new session/m);
    assert.match(result.out, /⚙ glob\(\{"pattern":"\*\*\/\*"\}\)\n {2}↳ no files match/);
    assert.match(result.out, /\[demo model\] The workspace has no files yet/);
    assert.match(result.out, /^cli-[0-9a-f]{8}\nnew session cli-[0-9a-f]{8}\n/m);
    // An unknown agent is refused where it is typed; the chat stays with main (issue 20.14).
    assert.match(result.out, /cannot switch to nobody: model "nobody" does not exist/);
    assert.doesNotMatch(result.out, /now talking to nobody/);
    assert.equal(result.err, '', 'hello went to main and was answered');
    assert.equal((result.out.match(/\[demo model\]/g) ?? []).length, 2, 'both messages were answered');
    assert.match(result.out, /unknown command \/bogus/);
    assert.doesNotMatch(result.out, /never sent/);
    assert.ok(!result.out.includes('\u001b['), 'no colours when piped');
  });

  it('keeps the history in one session until /new', async () => {
    const upstream = await startFakeUpstream({ reply: 'noted' });
    try {
      const models = JSON.stringify(upstream.modelsConfig());
      const set = await cli(['config', 'set', 'models', models, '--url', t.url], t.home);
      assert.equal(set.code, 0, set.err);
      const result = await cli(['agent', 'chat', '--url', t.url], t.home, {
        stdin: 'first\nsecond\n/new\nthird\n',
      });
      assert.equal(result.code, 0, result.err);
      const counts = upstream.requests.map(
        (body) => (body['messages'] as Array<{ role: string }>).filter((m) => m.role === 'user').length,
      );
      assert.deepEqual(counts, [1, 2, 1]);
    } finally {
      await demoModelAgain();
      await upstream.close();
    }
  });

  it('Ctrl-C (SIGINT) stops the turn being written, not the program', async () => {
    const upstream = await startFakeUpstream({ mode: 'hang' });
    try {
      await cli(['config', 'set', 'models', JSON.stringify(upstream.modelsConfig()), '--url', t.url], t.home);
      const child = start(['agent', 'chat', '--url', t.url], t.home);
      try {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        child.stdin.write('hello\n');
        await waitFor(() => String(upstream.requestCount), /^1$/);
        child.kill('SIGINT');
        await waitFor(() => out, /\(stopped\)/);
        child.stdin.end('/session\n');
        assert.equal(await exited, 0);
        assert.match(out, /\(stopped\)\ncli-[0-9a-f]{8}\n/);
      } finally {
        child.kill('SIGKILL');
      }
    } finally {
      await demoModelAgain();
      await upstream.close();
    }
  });

  it('in a terminal (a pseudo-terminal from script): prompt, colours, and Ctrl-C twice at the prompt exits', async () => {
    const child = spawn(
      'script',
      ['-qfec', `"${process.execPath}" "${BIN}" agent chat --url ${t.url}`, '/dev/null'],
      {
        env: cliEnv(t.home, { TERM: 'xterm' }),
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    after(() => void child.kill('SIGKILL'));
    await waitFor(() => out, /Chatting with main/);
    child.stdin.write('list files\r');
    await waitFor(() => out, /no files yet/);
    assert.ok(out.includes('\u001b[36mmain\u001b[39m'), 'a coloured prompt');
    assert.match(out, /⚙ glob/);
    child.stdin.write('\u0003');
    await waitFor(() => out, /press Ctrl-C again to exit/);
    child.stdin.write('\u0003');
    assert.equal(await exited, 0);
  });
});
