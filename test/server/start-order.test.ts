// The server listens first and only then connects chat platform accounts and fires cron tasks: a start
// that fails on a busy port reaches out to nothing, and says how to pick another port.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer } from '../../src/server.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';

const FAILING_TOKEN = '111111:never-polled';
const WORKING_TOKEN = '222222:polled';

describe('start-up order', () => {
  let telegram: FakeTelegram;
  let busy: Server;
  let busyPort = 0;
  const dirs: string[] = [];

  before(async () => {
    telegram = await startFakeTelegram();
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  after(async () => {
    await telegram.close();
    await new Promise((resolve) => busy.close(resolve));
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  async function configDir(token: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'start-order-'));
    dirs.push(dir);
    await writeFile(
      join(dir, 'config.yaml'),
      [
        'channels:',
        '  telegram:',
        '    enabled: true',
        '    accounts:',
        '      bot1:',
        `        app_secret: "${token}"`,
        `        api_base: ${telegram.url}`,
        '',
      ].join('\n'),
    );
    return dir;
  }

  it('a busy port fails the start with a hint, before any platform is polled', async () => {
    const lines: string[] = [];
    const failing = await configDir(FAILING_TOKEN);
    await assert.rejects(
      startServer({
        config: 'config.yaml',
        port: busyPort,
        cwd: failing,
        env: {},
        say: (line) => lines.push(line),
      }),
      new RegExp(`port ${busyPort} on 127\\.0\\.0\\.1 is already in use .*--port <n>`),
    );

    // The same account on a server that does start is polled: once, by that server alone.
    const working = await configDir(WORKING_TOKEN);
    const server = await startServer({
      config: 'config.yaml',
      port: 0,
      cwd: working,
      env: {},
      say: () => undefined,
    });
    try {
      await telegram.waitForCalls('getUpdates', 1);
      assert.ok(telegram.calls.some((call) => call.token === WORKING_TOKEN));
      assert.deepEqual(
        telegram.calls.filter((call) => call.token === FAILING_TOKEN).map((call) => call.method),
        [],
        'the server that could not listen never reached the platform',
      );
    } finally {
      await server.close();
    }
  });
});
