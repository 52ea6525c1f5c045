import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDemoProvider } from '../../src/model-providers/demo.ts';
import type { ChatMessage, ToolSpec } from '../../src/model-providers/types.ts';
import { collect, textOf } from './stream-helpers.ts';

const TOOLS: ToolSpec[] = [
  { name: 'glob', description: 'find files', parameters: { type: 'object' } },
  { name: 'read', description: 'read a file', parameters: { type: 'object' } },
];

function request(messages: ChatMessage[], tools: ToolSpec[] = TOOLS) {
  return { model: '', messages, tools, signal: new AbortController().signal };
}

describe('demo provider', () => {
  const demo = createDemoProvider();

  it('is labelled as the demo', () => {
    assert.equal(demo.id, 'demo');
    assert.equal(demo.demo, true);
  });

  it('answers in several text deltas that say it is the demo and how to configure a real model', async () => {
    const events = await collect(demo.stream(request([{ role: 'user', content: 'Hello there' }])));
    assert.ok(events.filter((event) => event.type === 'text-delta').length >= 3);
    const text = textOf(events);
    assert.match(text, /^\[demo model\]/);
    assert.match(text, /built-in demo model/);
    assert.match(
      text,
      /add a provider in the web UI \(\/ui\/settings\), with `agent-service providers add`, under models\.providers in config\.yaml, or with POST \/api\/v1\/config\/models\/providers/,
    );
    assert.match(text, /Hello there/);
    const usage = events.find((event) => event.type === 'usage');
    assert.ok(usage?.type === 'usage' && usage.usage.promptTokens === 3 && usage.usage.completionTokens > 0);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
  });

  it('says the workspace is empty when glob found nothing, instead of counting the message as a file', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'glob', arguments: '{"pattern":"**/*"}' }],
      },
      { role: 'tool', toolCallId: 'c1', content: 'no files match **/*' },
    ];
    const text = textOf(await collect(demo.stream(request(messages))));
    assert.match(text, /^\[demo model\] The workspace has no files yet\./);
    assert.doesNotMatch(text, /1 matching file/);
  });

  it('is deterministic', async () => {
    const first = await collect(demo.stream(request([{ role: 'user', content: 'same question' }])));
    const second = await collect(demo.stream(request([{ role: 'user', content: 'same question' }])));
    assert.deepEqual(first, second);
  });

  it('calls glob when asked to list files and glob is offered', async () => {
    const events = await collect(
      demo.stream(request([{ role: 'user', content: 'Can you list files here?' }])),
    );
    assert.deepEqual(events[0], {
      type: 'tool-call',
      call: { id: 'demo-call-1', name: 'glob', arguments: '{"pattern":"**/*"}' },
    });
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });
  });

  it('answers in text when asked to list files but glob is not offered', async () => {
    const events = await collect(demo.stream(request([{ role: 'user', content: 'ls' }], [])));
    assert.ok(events.every((event) => event.type !== 'tool-call'));
    assert.match(textOf(events), /\[demo model\]/);
  });

  it('calls read for "read <file>"', async () => {
    const events = await collect(
      demo.stream(request([{ role: 'user', content: 'please read notes/todo.md' }])),
    );
    assert.deepEqual(events[0], {
      type: 'tool-call',
      call: { id: 'demo-call-1', name: 'read', arguments: '{"path":"notes/todo.md"}' },
    });
  });

  it('summarises a tool result that ends the conversation', async () => {
    const events = await collect(
      demo.stream(
        request([
          { role: 'user', content: 'what files are there?' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'demo-call-1', name: 'glob', arguments: '{"pattern":"**/*"}' }],
          },
          { role: 'tool', toolCallId: 'demo-call-1', content: 'AGENTS.md\nnotes/todo.md\nsrc/main.ts' },
        ]),
      ),
    );
    assert.ok(events.every((event) => event.type !== 'tool-call'));
    const text = textOf(events);
    assert.match(text, /^\[demo model\] The workspace has 3 matching files:/);
    assert.match(text, /notes\/todo\.md/);
    assert.match(text, /config\.yaml/);
  });

  it('stops at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await assert.rejects(
      collect(
        demo.stream({ model: '', messages: [{ role: 'user', content: 'hi' }], signal: controller.signal }),
      ),
      /gone/,
    );
  });
});
