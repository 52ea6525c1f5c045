import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { BUILTIN_TOOL_NAMES, builtinToolForms, createBuiltinTool } from '../../src/tools/builtin.ts';
import { builtinTool } from '../../src/tools/tool-arguments.ts';

describe('built-in tools', () => {
  it('creates every built-in tool by name, with an object JSON Schema', () => {
    for (const name of BUILTIN_TOOL_NAMES) {
      const tool = createBuiltinTool(name);
      assert.equal(tool.name, name);
      assert.equal(tool.toolType, 'builtin');
      assert.equal(tool.parameters.type, 'object');
      assert.ok(tool.description.length > 10);
      assert.equal('$schema' in tool.parameters, false);
    }
    assert.deepEqual(createBuiltinTool('read').parameters.required, ['path']);
  });

  it('builds a tool without building its JSON Schema: that waits for a turn offering the tool', () => {
    let built = 0;
    const tool = builtinTool({
      name: 'probe',
      description: 'A tool whose schema counts how often it is built.',
      arguments: {
        get parameters() {
          built += 1;
          return { type: 'object', properties: {} };
        },
        parse: (args) => args,
      },
      execute: async () => 'ok',
    });
    assert.equal(built, 0);
    assert.deepEqual(tool.parameters, { type: 'object', properties: {} });
    assert.equal(built, 1);
  });

  it('refuses an unknown name and an invalid config', () => {
    assert.throws(
      () => createBuiltinTool('teleport'),
      (error: unknown) =>
        error instanceof AppError &&
        error.kind === 'invalid' &&
        /unknown built-in tool "teleport"/.test(error.message),
    );
    assert.throws(
      () => createBuiltinTool('bash', { timeoutMs: 'soon' }),
      (error: unknown) =>
        error instanceof AppError && /invalid config for tool bash: timeoutMs/.test(error.message),
    );
  });

  it('describes each tool configuration as a form with defaults', () => {
    const forms = builtinToolForms();
    assert.deepEqual(
      forms.map((form) => form.name),
      [...BUILTIN_TOOL_NAMES],
    );
    const bash = forms.find((form) => form.name === 'bash');
    const field = (name: string) => bash?.fields.find((candidate) => candidate.name === name);
    assert.deepEqual(field('enabled'), {
      name: 'enabled',
      type: 'boolean',
      default: false,
      label: 'Enabled',
      description: 'The tool refuses every command until this is on.',
    });
    assert.equal(field('timeoutMs')?.default, 60_000);
    assert.equal(field('maxOutputBytes')?.default, 65_536);
    assert.equal(field('allow')?.type, 'string[]');
    assert.ok(Array.isArray(field('deny')?.default) && (field('deny')?.default as string[]).includes('sudo'));
    const webFetch = forms.find((form) => form.name === 'web_fetch');
    assert.deepEqual(
      webFetch?.fields.map((candidate) => [candidate.name, candidate.default]),
      [
        ['allowPrivateNetwork', false],
        ['maxBytes', 1_048_576],
        ['timeoutMs', 15_000],
      ],
    );
    assert.deepEqual(forms.find((form) => form.name === 'edit')?.fields, []);
  });
});
