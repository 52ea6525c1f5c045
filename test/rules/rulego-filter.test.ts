// Facts from RuleGo's components/filter tests (expr_filter, js_filter, field_filter), through the
// REST API with debugMode on: the relation each node logs, its error and the data it sends on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { createChain, runLogged } from './rulego-harness.ts';

const telemetry = { name: 'aa', temperature: 60, humidity: 30 };
const query = { productType: 'test' };

describe('RuleGo filter nodes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  /** The relation one node takes for `payload`, and its logged error. */
  async function relationOf(
    type: string,
    configuration: Record<string, unknown>,
    payload: Record<string, unknown> | string,
  ) {
    const run = await runLogged(t, [{ id: 'f', type, configuration }], [], payload, { query });
    const log = run.node('f');
    assert.equal(log.relationTypes.length, 1, JSON.stringify(log));
    return { relation: log.relationTypes[0], err: log.err, log };
  }

  it('exprFilter: the OnMsg cases of expr_filter_node_test', async () => {
    const cases: Array<[string, Record<string, unknown> | string, string]> = [
      ['msg.temperature > 50', 'AA', 'Failure'],
      ['msg.temperature > 50', telemetry, 'True'],
      ['msg.temperature > 50 && msg.humidity > 20', telemetry, 'True'],
      ["upper(msg.name)=='AA'", telemetry, 'True'],
      ["upper(msg.name)=='AA'", { name: 'bb', temperature: 40 }, 'False'],
      ['temperature==nil?true:false', 'AA', 'True'],
      ["upper(msg)=='AA'", 'AA', 'True'],
      ["upper(msg[:1])=='A'", 'AA', 'True'],
      ['msg.temperature > 50', { temperature: 40 }, 'False'],
    ];
    for (const [expr, payload, expected] of cases) {
      const { relation, err } = await relationOf('exprFilter', { expr }, payload);
      assert.equal(relation, expected, `${expr} on ${JSON.stringify(payload)}`);
      assert.equal(err !== undefined, expected === 'Failure', `${expr}: ${err}`);
    }
  });

  it('exprFilter: an empty expr fails the load with "expr can not be empty"; unclosed ${ fails it too', async () => {
    const empty = await createChain(t, [{ id: 'f', type: 'exprFilter', configuration: { expr: '' } }]);
    assert.equal(empty.statusCode, 400);
    assert.match((empty.json() as { error: string }).error, /expr can not be empty/);
    for (const expr of ['${node1.msg.temperature >', '${node1.msg.temperature']) {
      const bad = await createChain(t, [{ id: 'f', type: 'exprFilter', configuration: { expr } }]);
      assert.equal(bad.statusCode, 400, expr);
    }
  });

  it('exprFilter: node dependency expressions load and read the earlier node', async () => {
    const run = await runLogged(
      t,
      [
        {
          id: 'node1',
          type: 'exprTransform',
          configuration: { mapping: { temperature: '70', deviceType: "'sensor'" } },
        },
        { id: 'node2', type: 'metadataTransform', configuration: { mapping: { deviceType: "'sensor'" } } },
        {
          id: 'f',
          type: 'exprFilter',
          configuration: {
            expr: "${node1.msg.temperature} > 50 && msg.temperature > 60 && ${node2.metadata.deviceType} == 'sensor'",
          },
        },
      ],
      [
        ['node1', 'Success', 'node2'],
        ['node2', 'Success', 'f'],
      ],
      telemetry,
    );
    // node1's output replaced msg: {temperature: 70, deviceType: 'sensor'}.
    assert.deepEqual(run.node('f').relationTypes, ['True']);
  });

  it('jsFilter: True only for true, False for 1, a Failure for an undefined name', async () => {
    const script = 'return msg.temperature > 50;';
    assert.equal((await relationOf('jsFilter', { jsScript: script }, 'AA')).relation, 'False');
    assert.equal((await relationOf('jsFilter', { jsScript: script }, { temperature: 60 })).relation, 'True');
    assert.equal((await relationOf('jsFilter', { jsScript: script }, { temperature: 40 })).relation, 'False');
    assert.equal(
      (await relationOf('jsFilter', { jsScript: 'return 1' }, { temperature: 60 })).relation,
      'False',
    );
    const failed = await relationOf('jsFilter', { jsScript: 'return a' }, { temperature: 60 });
    assert.equal(failed.relation, 'Failure');
    assert.match(failed.err ?? '', /ReferenceError: 'a' is not defined/);
  });

  it('jsFilter: dataType is passed to the script', async () => {
    assert.equal(
      (await relationOf('jsFilter', { jsScript: "return String(dataType) === 'JSON';" }, {})).relation,
      'True',
    );
    assert.equal(
      (await relationOf('jsFilter', { jsScript: "return String(dataType) === 'TEXT';" }, 'x')).relation,
      'True',
    );
    assert.equal(
      (await relationOf('jsFilter', { jsScript: "return String(dataType) === 'TEXT';" }, {})).relation,
      'False',
    );
  });

  it('fieldFilter: the OnMsg cases of field_filter_node_test', async () => {
    const meta = { productType: 'A001', name: 'A001' };
    const run = async (
      configuration: Record<string, unknown>,
      payload: Record<string, unknown> | string,
      metadata = meta,
    ) => {
      const result = await runLogged(t, [{ id: 'f', type: 'fieldFilter', configuration }], [], payload, {
        query: metadata,
      });
      return result.node('f').relationTypes;
    };
    const all = { checkAllKeys: true, dataNames: 'temperature', metadataNames: 'productType,name' };
    assert.deepEqual(await run(all, { temperature: 40 }), ['True']);
    assert.deepEqual(await run({ checkAllKeys: true, dataNames: 'temperature' }, { temperature: 40 }), [
      'True',
    ]);
    const withLocation = {
      checkAllKeys: true,
      dataNames: 'temperature',
      metadataNames: 'productType,name,location',
    };
    assert.deepEqual(await run(withLocation, { temperature: 40 }), ['False']);
    const any = { checkAllKeys: false, dataNames: 'temperature', metadataNames: 'productType,name,location' };
    assert.deepEqual(await run(any, { temperature2: 40 }), ['True']);
    assert.deepEqual(await run(any, { temperature2: 40 }, {} as typeof meta), ['False']);
  });

  it('fieldFilter: JSON data that is not an object is a Failure', async () => {
    const run = await runLogged(
      t,
      [
        {
          id: 'f',
          type: 'fieldFilter',
          configuration: { dataNames: 'temperature', metadataNames: 'location' },
        },
      ],
      [],
      [1, 2],
    );
    assert.deepEqual(run.node('f').relationTypes, ['Failure']);
  });
});
