// Facts from RuleGo's components/transform tests (js_transform, expr_transform, metadata_transform),
// through the REST API with debugMode on: relation, output data, data type, metadata and error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NodeLog } from '../../src/engine/run-log.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { createChain, runLogged } from './rulego-harness.ts';

const telemetry = { name: 'aa', temperature: 60, humidity: 30 };
const query = { productType: 'test' };

describe('RuleGo transform nodes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function one(
    type: string,
    configuration: Record<string, unknown>,
    payload: Record<string, unknown> | unknown[] | string,
    msgType = 'ACTIVITY_EVENT',
  ): Promise<NodeLog> {
    const run = await runLogged(t, [{ id: 'n', type, configuration }], [], payload, { query, msgType });
    return run.node('n');
  }
  const out = (log: NodeLog) => {
    const message = log.outMsgs[0]?.msg;
    assert.ok(message, JSON.stringify(log));
    return message;
  };

  it('jsTransform: metadata and msgType changed by the script; vars read from the chain', async () => {
    const script =
      "metadata['test']='addFromJs';msgType='MSG_TYPE_MODIFY_BY_JS';return {'msg':msg,'metadata':metadata,'msgType':msgType};";
    for (const payload of ['AA', { name: 'lala' }]) {
      const log = await one('jsTransform', { jsScript: script }, payload);
      assert.deepEqual(log.relationTypes, ['Success']);
      const message = out(log);
      assert.equal(message.metadata['productType'], 'test');
      assert.equal(message.metadata['test'], 'addFromJs');
      assert.equal(message.type, 'MSG_TYPE_MODIFY_BY_JS');
      assert.equal(message.data, typeof payload === 'string' ? 'AA' : '{"name":"lala"}');
    }
  });

  it('jsTransform: return true is "return the value is not a map"; an undefined name and a write to text data fail', async () => {
    const notMap = await one('jsTransform', { jsScript: 'return true' }, 'AA');
    assert.deepEqual(notMap.relationTypes, ['Failure']);
    assert.equal(notMap.err, 'return the value is not a map');
    const undefinedName = await one('jsTransform', { jsScript: 'return a' }, 'AA');
    assert.deepEqual(undefinedName.relationTypes, ['Failure']);
    assert.ok(undefinedName.err);
    const write = await one(
      'jsTransform',
      { jsScript: "msg['add']=5+msg['test'];return {'msg':msg,'metadata':metadata,'msgType':msgType};" },
      'AA',
    );
    assert.deepEqual(write.relationTypes, ['Failure']);
  });

  it('jsTransform: JSON arrays in and out; dataType is the text JSON', async () => {
    const script = `
      metadata['originalType'] = dataType;
      if (Array.isArray(msg)) {
        metadata['jsonType'] = 'array';
        metadata['length'] = msg.length.toString();
        var result = [];
        for (var i = 0; i < msg.length; i++) result.push({index: i, value: msg[i], processed: true});
        return {'msg': result, 'metadata': metadata, 'msgType': msgType};
      }
      metadata['jsonType'] = 'object';
      msg.processedBy = 'js_transform';
      return {'msg': msg, 'metadata': metadata, 'msgType': msgType};`;
    const array = out(await one('jsTransform', { jsScript: script }, ['apple', 'banana', 'cherry']));
    assert.equal(array.dataType, 'JSON');
    assert.deepEqual(
      [array.metadata['originalType'], array.metadata['jsonType'], array.metadata['length']],
      ['JSON', 'array', '3'],
    );
    assert.deepEqual(JSON.parse(array.data), [
      { index: 0, value: 'apple', processed: true },
      { index: 1, value: 'banana', processed: true },
      { index: 2, value: 'cherry', processed: true },
    ]);
    const object = out(await one('jsTransform', { jsScript: script }, { name: 'test', id: 456 }));
    assert.equal(object.metadata['jsonType'], 'object');
    assert.deepEqual(JSON.parse(object.data), { name: 'test', id: 456, processedBy: 'js_transform' });
  });

  it('exprTransform: the OnMsg cases of expr_transform_node_test', async () => {
    const mapping = {
      id: 'id',
      ts: 'ts',
      dataType: 'dataType',
      type: 'type',
      name: 'upper(msg.name)',
      tmp: 'msg.temperature',
      alarm: 'msg.temperature>50',
      productType: 'metadata.productType',
    };
    const mapped = await one('exprTransform', { mapping }, telemetry);
    assert.deepEqual(mapped.relationTypes, ['Success']);
    const message = out(mapped);
    assert.equal(message.dataType, 'JSON');
    // Go marshals a map with its keys sorted.
    assert.equal(
      message.data,
      `{"alarm":true,"dataType":"JSON","id":"${message.id}","name":"AA","productType":"test","tmp":60,"ts":${message.ts},"type":"ACTIVITY_EVENT"}`,
    );

    assert.equal(out(await one('exprTransform', { expr: 'upper(msg.name)' }, telemetry)).data, 'AA');
    assert.equal(out(await one('exprTransform', { expr: 'upper(msg[:1])' }, 'aa')).data, 'A');
    const both = await one(
      'exprTransform',
      { expr: 'upper(msg[:1])', mapping: { name: 'upper(msg.name)' } },
      'aa',
    );
    assert.equal(out(both).data, 'A');
    const replaced = await one(
      'exprTransform',
      { expr: "replace(toJSON(msg),'name','productName')" },
      telemetry,
    );
    assert.equal(out(replaced).data, '{\n  "humidity": 30,\n  "productName": "aa",\n  "temperature": 60\n}');
    assert.deepEqual((await one('exprTransform', { expr: "msg.aa+'xx'" }, telemetry)).relationTypes, [
      'Failure',
    ]);
    assert.deepEqual(
      (await one('exprTransform', { mapping: { name: 'msg.aa+1' } }, telemetry)).relationTypes,
      ['Failure'],
    );
    const empty = await one('exprTransform', {}, telemetry);
    assert.deepEqual(empty.relationTypes, ['Success']);
    assert.equal(out(empty).data, '{}');
    assert.equal(
      out(await one('exprTransform', { expr: 'msg.temperature * 2' }, { temperature: 25 })).data,
      '50',
    );
    const priority = await one(
      'exprTransform',
      { expr: "'from_expr'", mapping: { result: "'from_mapping'" } },
      {},
    );
    assert.equal(out(priority).data, 'from_expr');
  });

  it('exprTransform: "msg.aa;" loads as in RuleGo; an unclosed ${ does not', async () => {
    assert.equal(
      (await createChain(t, [{ id: 'n', type: 'exprTransform', configuration: { expr: 'msg.aa;' } }]))
        .statusCode,
      201,
    );
    const mapping = await createChain(t, [
      { id: 'n', type: 'exprTransform', configuration: { mapping: { name: 'msg.aa;' } } },
    ]);
    assert.equal(mapping.statusCode, 201, mapping.body);
    const bad = await createChain(t, [
      { id: 'n', type: 'exprTransform', configuration: { mapping: { invalid: '${node1.msg.temperature' } } },
    ]);
    assert.equal(bad.statusCode, 400);
  });

  it('metadataTransform: the OnMsg cases of metadata_transform_node_test', async () => {
    const kept = await one(
      'metadataTransform',
      {
        mapping: {
          id: 'id',
          ts: 'ts',
          dataType: 'dataType',
          type: 'type',
          name: 'upper(msg.name)',
          tmp: 'msg.temperature',
          alarm: 'msg.temperature>50',
          test01: "'test01'",
          temperature2: 'msg.temperature2',
        },
      },
      telemetry,
    );
    assert.deepEqual(kept.relationTypes, ['Success']);
    const message = out(kept);
    assert.equal(message.metadata['id'], message.id);
    assert.equal(message.metadata['ts'], String(message.ts));
    assert.equal(message.metadata['dataType'], 'JSON');
    assert.equal(message.metadata['type'], 'ACTIVITY_EVENT');
    assert.equal(message.metadata['name'], 'AA');
    assert.equal(message.metadata['tmp'], '60');
    assert.equal(message.metadata['alarm'], 'true');
    assert.equal(message.metadata['test01'], 'test01');
    assert.equal(message.metadata['temperature2'], '');
    assert.equal(message.metadata['productType'], 'test');
    assert.equal(message.data, JSON.stringify(telemetry));

    const fresh = out(
      await one(
        'metadataTransform',
        { isNew: true, mapping: { id: 'id', name: 'upper(msg.name)' } },
        telemetry,
      ),
    );
    assert.deepEqual(fresh.metadata, { id: fresh.id, name: 'AA' });
    assert.deepEqual(
      (await one('metadataTransform', { isNew: true, mapping: { id: 'xx+1' } }, telemetry)).relationTypes,
      ['Failure'],
    );
    const traditional = out(
      await one(
        'metadataTransform',
        { mapping: { doubleTemp: 'msg.temperature * 2', deviceName: 'upper(msg.deviceType)' } },
        { temperature: 25, deviceType: 'sensor' },
      ),
    );
    assert.equal(traditional.metadata['doubleTemp'], '50');
    assert.equal(traditional.metadata['deviceName'], 'SENSOR');
  });
});
