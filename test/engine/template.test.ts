import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { messageResolver, pathResolver, renderTemplate, Template } from '../../src/engine/template.ts';

test('templates resolve metadata, msg paths, vars and bare metadata keys', () => {
  const message = newMessage(
    { user: { name: 'Ada', tags: ['x', 'y'] } },
    { metadata: { id: '42' }, type: 'T' },
  );
  const resolve = messageResolver(message, { region: 'eu' });
  assert.equal(
    renderTemplate(
      '/u/${metadata.id}/${msg.user.name}/${msg.user.tags.1}?r=${vars.region}&b=${id}&t=${msgType}',
      resolve,
    ),
    '/u/42/Ada/y?r=eu&b=42&t=T',
  );
  assert.equal(renderTemplate('${msg.user.tags}', resolve), '["x","y"]');
  assert.equal(
    renderTemplate('keep ${metadata.missing} and ${ spaced.key }', resolve),
    'keep ${metadata.missing} and ${ spaced.key }',
  );
});

test('a compiled template renders many times and knows when it has no placeholders', () => {
  const template = Template.compile('Hello ${name}!');
  assert.equal(template.isStatic, false);
  assert.equal(Template.compile('plain').isStatic, true);
  assert.equal(template.render(pathResolver({ vars: { name: 'x' } }, 'vars')), 'Hello x!');
  assert.equal(
    template.render(() => 'Bo'),
    'Hello Bo!',
  );
});

test('path resolver calls lazy roots once', () => {
  let calls = 0;
  const resolve = pathResolver({ ruleChain: () => ((calls += 1), { id: 'c1' }) });
  assert.equal(renderTemplate('${ruleChain.id}-${ruleChain.id}', resolve), 'c1-c1');
  assert.equal(calls, 1);
});

test('newMessage makes JSON data from objects and TEXT from strings', () => {
  const json = newMessage({ a: 1 }, { type: 'T', metadata: { k: 'v' } });
  assert.equal(json.dataType, 'JSON');
  assert.equal(json.data, '{"a":1}');
  assert.equal(json.type, 'T');
  assert.deepEqual(json.metadata, { k: 'v' });
  assert.ok(json.id.length > 0 && json.ts > 0);
  const text = newMessage('hi');
  assert.equal(text.dataType, 'TEXT');
  assert.equal(text.data, 'hi');
});
