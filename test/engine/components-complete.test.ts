// GET /api/v1/components as the visual editor reads it: every node type the server loads (the AI,
// cache, external and flow nodes included) with a label, a description, its relations, and every
// field (nested ones and a list's item fields too) with a RuleGo type, required, a default, a label
// and a help text, since the editor builds each node's form from them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ComponentField, ComponentList } from '../../src/engine/components.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

const TYPES = new Set(['string', 'int', 'float64', 'bool', 'array', 'map', 'struct']);

describe('GET /api/v1/components: complete forms for the editor', () => {
  let t: TestApp;
  let list: ComponentList;
  before(async () => {
    t = await createTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/components' });
    assert.equal(response.statusCode, 200, response.body);
    list = response.json() as ComponentList;
  });
  after(() => t.close());

  it('lists every node type, the new RuleGo ones and the AI nodes included', () => {
    const types = list.nodes.map((node) => node.type);
    for (const type of [
      'groupFilter',
      'ref',
      'fetchNodeOutput',
      'iterator',
      'while',
      'break',
      'functions',
      'comment',
      'cacheGet',
      'cacheSet',
      'cacheDelete',
      'dbClient',
      'mqttClient',
      'sendEmail',
      'net',
      'ws',
      'exec',
      'ssh',
      'ai/agent',
      'ai/llm',
      'jsFilter',
      'restApiCall',
    ]) {
      assert.ok(types.includes(type), `${type} is listed`);
    }
    assert.equal(new Set(types).size, types.length, 'each type once');
  });

  it('every node has a label, a description, a category and its relations', () => {
    for (const node of list.nodes) {
      assert.ok(node.label.trim() !== '', `${node.type} label`);
      assert.ok(node.desc.trim() !== '', `${node.type} desc`);
      assert.ok(node.category.trim() !== '', `${node.type} category`);
      // `end` ends a branch: it has no relation out.
      assert.ok(node.type === 'end' || node.relationTypes.length > 0, `${node.type} relations`);
    }
  });

  it('every field, at any depth, has a RuleGo type, required, a default, a label and a help text', () => {
    let count = 0;
    const check = (where: string, fields: ComponentField[]) => {
      for (const field of fields) {
        const path = `${where}.${field.name}`;
        count += 1;
        assert.ok(TYPES.has(field.type), `${path} type ${field.type}`);
        assert.equal(typeof field.required, 'boolean', `${path} required`);
        assert.ok('defaultValue' in field, `${path} defaultValue`);
        assert.ok(field.label.trim() !== '' && field.label !== field.name, `${path} label "${field.label}"`);
        assert.ok(field.desc.trim() !== '', `${path} help text`);
        assert.deepEqual(field.rules.length > 0, field.required, `${path} rules follow required`);
        check(path, field.fields);
      }
    };
    for (const node of list.nodes) check(node.type, node.fields);
    assert.ok(count > 150, `${count} fields checked`);
  });

  it("a list of objects gives its item's fields (cacheSet items, dbClient is flat)", () => {
    const items = list.nodes
      .find((node) => node.type === 'cacheSet')
      ?.fields.find((field) => field.name === 'items');
    assert.equal(items?.type, 'array');
    assert.deepEqual(
      items?.fields.map((field) => field.name),
      ['level', 'key', 'value', 'ttl'],
    );
    const sql = list.nodes
      .find((node) => node.type === 'dbClient')
      ?.fields.find((field) => field.name === 'sql');
    assert.equal(sql?.required, true);
    const driver = list.nodes
      .find((node) => node.type === 'dbClient')
      ?.fields.find((field) => field.name === 'driverName');
    assert.equal(driver?.defaultValue, 'mysql');
  });
});
