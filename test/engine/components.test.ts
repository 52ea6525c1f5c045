import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeComponents } from '../../src/engine/components.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';

test('every built-in node type is described with its relations and fields', () => {
  const components = describeComponents(createDefaultRegistry());
  assert.deepEqual(components.map((component) => component.type).sort(), [
    'delay',
    'end',
    'exprFilter',
    'flow',
    'for',
    'fork',
    'join',
    'jsFilter',
    'jsSwitch',
    'jsTransform',
    'log',
    'restApiCall',
    'switch',
  ]);
  const filter = components.find((component) => component.type === 'jsFilter');
  assert.deepEqual(filter?.relationTypes, ['True', 'False', 'Failure']);
  assert.equal(filter?.category, 'filter');
  assert.deepEqual(filter?.fields, [
    {
      name: 'jsScript',
      type: 'string',
      defaultValue: undefined,
      required: true,
      label: 'Filter script',
      desc: 'Body of function Filter(msg, metadata, msgType, dataType); return true or false.',
    },
  ]);
});

test('defaults, enums, maps and optional fields come from the zod schema', () => {
  const rest = describeComponents(createDefaultRegistry()).find(
    (component) => component.type === 'restApiCall',
  );
  const field = (name: string) => rest?.fields.find((item) => item.name === name);
  assert.deepEqual(field('restEndpointUrlPattern')?.required, true);
  assert.equal(field('restEndpointUrlPattern')?.label, 'URL');
  assert.deepEqual(
    { ...field('requestMethod') },
    {
      name: 'requestMethod',
      type: 'string',
      defaultValue: 'POST',
      required: false,
      label: 'Method',
      desc: 'HTTP method.',
      options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'],
    },
  );
  assert.equal(field('headers')?.type, 'map');
  assert.equal(field('readTimeoutMs')?.type, 'integer');
  assert.equal(field('readTimeoutMs')?.defaultValue, 2000);
  const join = describeComponents(createDefaultRegistry()).find((component) => component.type === 'join');
  assert.deepEqual(
    join?.fields.map((item) => [item.name, item.type, item.required, item.defaultValue]),
    [
      ['timeout', 'number', false, undefined],
      ['mergeToMap', 'boolean', false, false],
    ],
  );
});
