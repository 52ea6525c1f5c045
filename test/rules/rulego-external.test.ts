// dbClient against the local PostgreSQL, MariaDB and a SQLite file (RuleGo's db_client_node_test
// operations: insert, select, getOne, update, delete); the network guard; exec and ssh refused at load.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { expandInClause } from '../../src/engine/nodes/db-client.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { createChain, outData, runLogged } from './rulego-harness.ts';

const table = `rulego_${randomBytes(4).toString('hex')}`;
const DSNS = {
  postgres: 'postgres://postgres@127.0.0.1:5432/test',
  mysql: 'root:@tcp(127.0.0.1:3306)/test',
};

describe('dbClient and the guarded external nodes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { engine: { rest_allow_private_network: true } } });
  });
  after(() => t.close());

  const db = (
    id: string,
    driverName: string,
    dsn: string,
    sql: string,
    extra: Record<string, unknown> = {},
  ) => ({
    id,
    type: 'dbClient',
    configuration: { driverName, dsn, sql, ...extra },
  });

  for (const [driverName, dsn] of [
    ['postgres', DSNS.postgres],
    ['mysql', DSNS.mysql],
    ['sqlite3', 'SQLITE'],
  ] as const) {
    it(`${driverName}: create, insert with parameters, select, getOne, IN lists, SQL from metadata, update and delete`, async () => {
      const target = dsn === 'SQLITE' ? join(t.dir, 'rules.db') : dsn;
      const run = await runLogged(
        t,
        [
          db(
            'create',
            driverName,
            target,
            `CREATE TABLE ${table} (id INT PRIMARY KEY, name VARCHAR(40), age INT)`,
          ),
          db('insert', driverName, target, `INSERT INTO ${table} (id, name, age) VALUES (?, ?, ?)`, {
            params: ['${msg.id}', '${msg.name}', 18],
          }),
          db('insert2', driverName, target, `INSERT INTO ${table} (id, name, age) VALUES (?, ?, ?)`, {
            params: [2, 'test02', 5],
          }),
          db('select', driverName, target, `SELECT id, name, age FROM ${table} WHERE age >= ?`, {
            params: [10],
          }),
          db('one', driverName, target, `SELECT name FROM ${table} WHERE id = \${metadata.id}`, {
            getOne: true,
          }),
          // RuleGo's expandInClause: a list parameter fills IN (?), an empty one is NULL.
          db('in', driverName, target, `SELECT name FROM ${table} WHERE id IN (?) AND age < ? ORDER BY id`, {
            params: ['${create.msg.ids}', 100],
          }),
          db('inEmpty', driverName, target, `SELECT name FROM ${table} WHERE id IN (?)`, { params: [[]] }),
          // The statement itself from a template (RuleGo's ${metadata.sql}).
          db('bySql', driverName, target, '${metadata.sql}', { params: ['${metadata.id}'], getOne: true }),
          db('update', driverName, target, `UPDATE ${table} SET age = ? WHERE id = ?`, {
            params: [21, '${metadata.id}'],
          }),
          db('delete', driverName, target, `DELETE FROM ${table} WHERE id = ?`, {
            opType: 'DELETE',
            params: ['${metadata.id}'],
          }),
          db('drop', driverName, target, `DROP TABLE ${table}`),
        ],
        [
          ['create', 'Success', 'insert'],
          ['insert', 'Success', 'insert2'],
          ['insert2', 'Success', 'select'],
          ['select', 'Success', 'one'],
          ['one', 'Success', 'in'],
          ['in', 'Success', 'inEmpty'],
          ['inEmpty', 'Success', 'bySql'],
          ['bySql', 'Success', 'update'],
          ['update', 'Success', 'delete'],
          ['delete', 'Success', 'drop'],
        ],
        { id: 1, name: 'test01', ids: [1, 2] },
        { query: { id: '1', sql: `SELECT name FROM ${table} WHERE id = ?` } },
      );
      assert.deepEqual(run.node('create').relationTypes, ['Success'], run.node('create').err);
      assert.equal(run.node('insert').outMsgs[0]?.msg.metadata['rowsAffected'], '1');
      assert.ok('lastInsertId' in (run.node('insert').outMsgs[0]?.msg.metadata ?? {}));
      assert.deepEqual(outData(run.node('select')), [{ age: 18, id: 1, name: 'test01' }]);
      assert.deepEqual(outData(run.node('one')), { name: 'test01' });
      assert.deepEqual(outData(run.node('in')), [{ name: 'test01' }, { name: 'test02' }]);
      assert.deepEqual(outData(run.node('inEmpty')), []);
      assert.deepEqual(outData(run.node('bySql')), { name: 'test01' });
      // DDL affects no rows (RuleGo's testExecTypeDDL).
      assert.equal(run.node('create').outMsgs[0]?.msg.metadata['rowsAffected'], '0');
      assert.equal(run.node('update').outMsgs[0]?.msg.metadata['rowsAffected'], '1');
      assert.equal(run.node('delete').outMsgs[0]?.msg.metadata['rowsAffected'], '1');
      assert.deepEqual(run.node('drop').relationTypes, ['Success'], run.node('drop').err);
      assert.equal(run.node('drop').outMsgs[0]?.msg.metadata['rowsAffected'], '0');
    });
  }

  it("RuleGo's expandInClause cases", () => {
    const cases: Array<[string, unknown[], string, unknown[]]> = [
      [
        'SELECT * FROM users WHERE id IN (?)',
        [[1, 2, 3]],
        'SELECT * FROM users WHERE id IN (?, ?, ?)',
        [1, 2, 3],
      ],
      [
        'SELECT * FROM users WHERE name IN (?)',
        [['alice', 'bob', 'charlie']],
        'SELECT * FROM users WHERE name IN (?, ?, ?)',
        ['alice', 'bob', 'charlie'],
      ],
      [
        'SELECT * FROM users WHERE status = ? AND id IN (?) AND deleted = ?',
        ['active', [1, 2, 3], false],
        'SELECT * FROM users WHERE status = ? AND id IN (?, ?, ?) AND deleted = ?',
        ['active', 1, 2, 3, false],
      ],
      ['SELECT * FROM users WHERE id IN (?)', [42], 'SELECT * FROM users WHERE id IN (?)', [42]],
      ['SELECT * FROM users WHERE id IN (?)', [[]], 'SELECT * FROM users WHERE id IN (NULL)', []],
      ['SELECT * FROM users WHERE id IN (1, 2, 3)', [], 'SELECT * FROM users WHERE id IN (1, 2, 3)', []],
      ['SELECT * FROM users WHERE id in (?)', [[1, 2]], 'SELECT * FROM users WHERE id in (?, ?)', [1, 2]],
      [
        'SELECT * FROM users WHERE id IN (?) AND status IN (?)',
        [
          [1, 2],
          ['active', 'pending'],
        ],
        'SELECT * FROM users WHERE id IN (?, ?) AND status IN (?, ?)',
        [1, 2, 'active', 'pending'],
      ],
    ];
    for (const [sql, params, wantSql, wantParams] of cases) {
      assert.deepEqual(expandInClause(sql, params), { sql: wantSql, params: wantParams }, sql);
    }
  });

  it('an empty sql is refused at load ("sql can not empty")', async () => {
    const response = await createChain(t, [db('q', 'postgres', DSNS.postgres, '')]);
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /sql can not empty/);
  });

  it('a bad opType and an unknown driver are refused at load; SQL errors are Failures', async () => {
    const bad = await createChain(t, [db('q', 'postgres', DSNS.postgres, 'SELECT 1', { opType: 'MERGE' })]);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /unsupported opTypet: MERGE/);
    const driver = await createChain(t, [db('q', 'oracle', DSNS.postgres, 'SELECT 1')]);
    assert.equal(driver.statusCode, 400);
    const failing = (
      await runLogged(t, [db('q', 'postgres', DSNS.postgres, 'SELECT * FROM no_such_table_x')], [], {})
    ).node('q');
    assert.deepEqual(failing.relationTypes, ['Failure']);
    assert.match(failing.err ?? '', /no_such_table_x/);
  });

  it('exec and ssh are refused at load unless the config allows them, with an error that says so', async () => {
    const exec = await createChain(t, [
      { id: 'x', type: 'exec', configuration: { cmd: 'echo', args: ['hi'] } },
    ]);
    assert.equal(exec.statusCode, 400);
    assert.match(exec.json().error, /exec node is turned off on this server: set engine.allow_exec to true/);
    const ssh = await createChain(t, [
      { id: 's', type: 'ssh', configuration: { host: '127.0.0.1', cmd: 'ls' } },
    ]);
    assert.equal(ssh.statusCode, 400);
    assert.match(ssh.json().error, /set engine.allow_ssh to true/);
  });
});

describe('the network guard of the external nodes (default config)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('dbClient to a loopback database is refused unless allowed', async () => {
    const log = (
      await runLogged(
        t,
        [
          {
            id: 'q',
            type: 'dbClient',
            configuration: { driverName: 'postgres', dsn: DSNS.postgres, sql: 'SELECT 1' },
          },
        ],
        [],
        {},
      )
    ).node('q');
    assert.deepEqual(log.relationTypes, ['Failure']);
    assert.match(
      log.err ?? '',
      /refusing to connect to 127\.0\.0\.1: private, loopback and link-local addresses are not allowed/,
    );
  });
});

describe('exec when engine.allow_exec is on', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { engine: { allow_exec: true } } });
  });
  after(() => t.close());

  it('runs the program without a shell, its output as the data', async () => {
    const log = (
      await runLogged(
        t,
        [
          {
            id: 'x',
            type: 'exec',
            configuration: { cmd: 'echo', args: ['hello', '${msg.name}', '$HOME'], replaceData: true },
          },
        ],
        [],
        { name: 'ada' },
      )
    ).node('x');
    assert.equal(log.outMsgs[0]?.msg.data, 'hello ada $HOME\n');
  });

  it("RuleGo's exec cases: a failing command, replaceData off, ${dir} and split arguments, workDir", async () => {
    const data = { name: 'aa', temperature: 60, humidity: 30 };
    const exec = async (configuration: Record<string, unknown>, query: Record<string, string> = {}) =>
      (await runLogged(t, [{ id: 'x', type: 'exec', configuration }], [], data, { query })).node('x');
    const failing = await exec({ cmd: 'ls', args: ['xx'], replaceData: true });
    assert.deepEqual(failing.relationTypes, ['Failure']);
    assert.ok(failing.err);
    const kept = await exec({ cmd: 'ls', args: ['.'] });
    assert.deepEqual(kept.relationTypes, ['Success']);
    assert.deepEqual(JSON.parse(kept.outMsgs[0]?.msg.data ?? ''), data);
    const folder = join(t.dir, 'exec-dir');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'marker.txt'), 'x');
    for (const args of [['${dir}'], ['${dir} -l'], ['${dir}', '-l']]) {
      const listed = await exec({ cmd: 'ls', args, replaceData: true }, { dir: folder });
      assert.deepEqual(listed.relationTypes, ['Success'], JSON.stringify(args));
      assert.match(listed.outMsgs[0]?.msg.data ?? '', /marker\.txt/, JSON.stringify(args));
    }
    const inFolder = await exec({ cmd: 'ls', replaceData: true }, { workDir: folder });
    assert.match(inFolder.outMsgs[0]?.msg.data ?? '', /marker\.txt/);
  });
});
