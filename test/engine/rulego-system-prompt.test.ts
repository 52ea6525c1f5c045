// The ai/agent system prompt takes message templates, as RuleGo's: ${msg.x}, ${metadata.x}, ${msgType}.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FolderListing, renderSystemPrompt } from '../../src/engine/ai/system-prompt.ts';
import { newMessage } from '../../src/engine/message.ts';
import { Template } from '../../src/engine/template.ts';

test('the system prompt renders ${msg.x}, ${metadata.x} and ${msgType} from the incoming message', async () => {
  const message = newMessage({ user: { name: 'Ann' } }, { type: 'CHAT', metadata: { lang: 'fr' } });
  const prompt = await renderSystemPrompt(
    Template.compile('Hi ${msg.user.name} (${metadata.lang}, ${msgType}) in ${ruleChain.id}, ${vars.tone}'),
    {
      chainId: 'c1',
      workspaceDir: '/nonexistent-workspace-for-test',
      vars: { tone: 'brief' },
      globals: () => ({}),
      listing: new FolderListing(),
      resolvePath: () => Promise.reject(new Error('no files')),
      message,
    },
  );
  assert.equal(prompt, 'Hi Ann (fr, CHAT) in c1, brief');
});
