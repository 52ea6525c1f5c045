import assert from 'node:assert/strict';
import { test } from 'node:test';
import { componentList, describeComponents } from '../../src/engine/components.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';

test('every built-in node type is described with its relations and fields', () => {
  const components = describeComponents(createDefaultRegistry());
  const types = components.map((component) => component.type);
  const expected = [
    'break',
    'comment',
    'fetchNodeOutput',
    'functions',
    'groupFilter',
    'iterator',
    'ref',
    'while',
    'delay',
    'end',
    'exprFilter',
    'exprTransform',
    'fieldFilter',
    'flow',
    'for',
    'fork',
    'groupAction',
    'join',
    'jsFilter',
    'jsSwitch',
    'jsTransform',
    'log',
    'metadataTransform',
    'msgTypeSwitch',
    'restApiCall',
    'switch',
    'text/template',
  ];
  assert.deepEqual(expected.filter((type) => !types.includes(type)), []);
  const filter = components.find((component) => component.type === 'jsFilter');
  assert.deepEqual(filter?.relationTypes, ['True', 'False', 'Failure']);
  assert.equal(filter?.category, 'filter');
  assert.equal(filter?.componentKind, 'nc');
  const script = filter?.fields.find((field) => field.name === 'jsScript');
  assert.equal(script?.type, 'string');
  assert.equal(script?.required, true);
  assert.deepEqual(script?.rules, [{ required: true, message: 'This field is required' }]);
});

test('defaults, enums, maps and optional fields come from the zod schema', () => {
  const rest = describeComponents(createDefaultRegistry()).find(
    (component) => component.type === 'restApiCall',
  );
  const field = (name: string) => rest?.fields.find((item) => item.name === name);
  assert.deepEqual(field('restEndpointUrlPattern')?.required, true);
  assert.equal(field('restEndpointUrlPattern')?.label, 'URL');
  const method = field('requestMethod');
  assert.equal(method?.type, 'string');
  assert.equal(method?.defaultValue, 'POST');
  assert.equal(method?.required, false);
  assert.deepEqual(method?.rules, []);
  assert.equal(method?.label, 'Method');
  assert.equal(field('headers')?.type, 'map');
  assert.equal(field('readTimeoutMs')?.type, 'int');
  assert.equal(field('readTimeoutMs')?.defaultValue, 2000);
  const join = describeComponents(createDefaultRegistry()).find((component) => component.type === 'join');
  assert.deepEqual(
    join?.fields.map((item) => [item.name, item.type, item.required, item.defaultValue]),
    [
      ['timeout', 'float64', false, null],
      ['mergeToMap', 'bool', false, false],
    ],
  );
});

test("an enum field is a select in RuleGo's component tag shape; others have none", () => {
  const rest = describeComponents(createDefaultRegistry()).find(
    (component) => component.type === 'restApiCall',
  );
  const method = rest?.fields.find((item) => item.name === 'requestMethod');
  assert.deepEqual(method?.component, {
    type: 'select',
    options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'].map((value) => ({ label: value, value })),
  });
  assert.equal(rest?.fields.find((item) => item.name === 'headers')?.component, null);
});

test("the component list has RuleGo's shape: endpoints, nodes, tools and builtins with global names", () => {
  const list = componentList(createDefaultRegistry(), ['models', 'agents']);
  assert.deepEqual(Object.keys(list).sort(), ['builtins', 'endpoints', 'nodes', 'tools']);
  assert.deepEqual(list.endpoints, []);
  assert.equal(list.tools, null);
  assert.ok(list.nodes.some((node) => node.type === 'jsFilter'));
  assert.deepEqual(list.builtins, {
    endpoints: { inProcessors: [], outProcessors: [] },
    nodePool: {},
    globals: ['agents', 'models'],
  });
});
