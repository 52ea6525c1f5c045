import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FolderListing, PROMPT_FILE_CAP, renderSystemPrompt } from '../../src/engine/ai/system-prompt.ts';
import { Template } from '../../src/engine/template.ts';
import { resolveInWorkspace } from '../../src/tools/workspace-path.ts';

const TRUNCATED = `\n[... truncated at ${PROMPT_FILE_CAP} characters]`;

describe('system prompt files', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'prompt-files-')));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  async function agentsSection(content: string): Promise<string> {
    await writeFile(join(workspace, 'AGENTS.md'), content);
    const prompt = await renderSystemPrompt(Template.compile('Base'), {
      chainId: 'chain',
      workspaceDir: workspace,
      vars: {},
      globals: () => ({}),
      listing: new FolderListing(),
      resolvePath: (path) => resolveInWorkspace(workspace, path, { mustExist: true }),
    });
    return prompt.slice('Base\n\n## AGENTS.md\n\n'.length);
  }

  it('keeps a file of up to the cap whole, in any script', async () => {
    for (const character of ['x', 'é', '€', '\u{1F600}']) {
      const whole = character.repeat(PROMPT_FILE_CAP / character.length);
      assert.equal(await agentsSection(whole), whole, `${character} x ${PROMPT_FILE_CAP}`);
    }
  });

  it('cuts a longer file at the cap, in any script', async () => {
    for (const character of ['x', 'é', '€', '\u{1F600}']) {
      const kept = character.repeat(PROMPT_FILE_CAP / character.length);
      assert.equal(await agentsSection(kept + character), kept + TRUNCATED, character);
      assert.equal(await agentsSection(kept + character.repeat(100_000)), kept + TRUNCATED, character);
    }
  });
});
