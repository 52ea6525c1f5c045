// `doctor --fix` repairs a wrong file mode, a stale lock, a missing default agent and a moved config
// key; a data root written by a newer version refuses to start; an older one is upgraded after a copy.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { startServer } from '../../src/server.ts';
import { connectLibsql, openDatabase } from '../../src/storage/database.ts';
import { migrateToLatest, migrations } from '../../src/storage/migrations/index.ts';
import { ChainFileStore } from '../../src/storage/chain-files.ts';
import { cli } from '../cli/cli-harness.ts';

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid ?? 0;
  await new Promise((resolve) => child.once('close', resolve));
  return pid;
}

type Check = { check: string; status: string; detail: string; fixed?: boolean };

describe('doctor --fix', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'doctor-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('repairs a wrong mode, a stale lock, a missing default agent and a moved key', async () => {
    const root = join(dir, 'data');
    await mkdir(join(root, 'secrets'), { recursive: true });
    await writeFile(join(root, 'secrets', 'jwt-secret'), 'x'.repeat(48), { mode: 0o644 });
    await chmod(root, 0o755);
    await writeFile(
      join(root, 'server.lock'),
      JSON.stringify({ pid: await deadPid(), startedAt: new Date().toISOString(), address: '127.0.0.1:1' }),
    );
    const config = join(dir, 'config.yaml');
    await writeFile(config, '# mine\nserver:\n  logLevel: warn # quiet\n  port: 1\nsecurity:\n  requireAuth: false\n');
    const args = ['doctor', '--json', '-c', config, '--url', '127.0.0.1:1'];

    const checked = await cli(args, dir);
    assert.equal(checked.code, 1); // the moved key stops the config from loading, and no server runs
    const before = JSON.parse(checked.out) as Check[];
    assert.equal(before.find((c) => c.check === 'config keys')?.status, 'fail');
    assert.match(before.find((c) => c.check === 'config keys')?.detail ?? '', /server\.logLevel → server\.log_level/);

    const fixed = await cli([...args, '--fix'], dir);
    const checks = JSON.parse(fixed.out) as Check[];
    const named = (name: string) => checks.find((c) => c.check === name);
    assert.equal(named('config keys')?.fixed, true);
    assert.equal(named('file modes')?.fixed, true, JSON.stringify(checks));
    assert.equal(named('data root lock')?.fixed, true);
    assert.equal(named('default agent')?.fixed, true);
    assert.equal((await stat(root)).mode & 0o777, 0o700);
    assert.equal((await stat(join(root, 'secrets', 'jwt-secret'))).mode & 0o777, 0o600);
    await assert.rejects(stat(join(root, 'server.lock')));
    assert.ok((await new ChainFileStore(root).scan()).some((l) => l.kind === 'agent' && l.id === 'main'));
    const text = await readFile(config, 'utf8');
    assert.match(text, /# mine\nserver:\n {2}log_level: warn # quiet\n/);

    const again = JSON.parse((await cli(args, dir)).out) as Check[];
    for (const name of ['config keys', 'file modes', 'data root lock', 'default agent'])
      assert.equal(again.find((c) => c.check === name)?.status, 'ok', name);
  });
});

describe('upgrades', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'upgrade-'));
    await writeFile(join(dir, 'config.yaml'), 'security:\n  requireAuth: false\n');
  });
  after(async () => rm(dir, { recursive: true, force: true }));
  const serve = () =>
    startServer({ config: join(dir, 'config.yaml'), port: 0, cwd: dir, env: {}, say: () => undefined, logLevel: 'silent' });

  it('an older data root is upgraded in place after a copy of its database', async () => {
    await mkdir(join(dir, 'data'), { recursive: true });
    const path = join(dir, 'data', 'agent-service.db');
    const old = await connectLibsql(path);
    const all = migrations('sqlite');
    const first = Object.fromEntries(Object.entries(all).slice(0, 1));
    assert.deepEqual(await migrateToLatest(old as Kysely<unknown>, 'sqlite', first), ['001-initial']);
    await old.destroy();
    const server = await serve();
    try {
      const copies = await readdir(join(dir, 'data', 'backups'));
      assert.equal(copies.length, 1);
      assert.match(copies[0] ?? '', /^pre-upgrade-.*\.db$/);
      const copy = await connectLibsql(join(dir, 'data', 'backups', copies[0] ?? ''));
      const names = await sql<{ name: string }>`select name from kysely_migration`.execute(copy);
      assert.deepEqual(names.rows.map((row) => row.name), ['001-initial']);
      await copy.destroy();
      const version = (await (await fetch(`${server.url}/api/v1/version`)).json()) as {
        database: { schema: string; pending: number };
      };
      assert.equal(version.database.pending, 0);
      assert.equal(version.database.schema, Object.keys(all).at(-1));
    } finally {
      await server.close();
    }
  });

  it('a data root of a newer version refuses to start with a clear message', async () => {
    const db = await openDatabase(join(dir, 'data', 'agent-service.db'));
    await sql`insert into kysely_migration (name, timestamp) values ('999-from-the-future', '2030-01-01')`.execute(db);
    await db.destroy();
    await assert.rejects(serve(), /written by a newer version of Agent Service .*999-from-the-future/);
    // The refused start left no lock behind.
    await assert.rejects(stat(join(dir, 'data', 'server.lock')));
  });
});
