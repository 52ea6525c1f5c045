// The `messages` of an ai/agent node, as rulego-components-ai's: a list of {role, content} whose
// contents are expr-lang templates (${msg.x}, ${metadata.x}, ${upper(msg.name)}, ${node1.msg.x}),
// compiled when the chain loads and rendered per message; one that fails to evaluate renders as "".
import { z } from 'zod';
import type { ChatMessage } from '../../model-providers/types.ts';
import { compileExprTemplate, renderAsString } from '../expr-template.ts';
import type { ExprTemplate } from '../expr-template.ts';
import { optionalText } from './config-fields.ts';

type Role = 'system' | 'user' | 'assistant';

export const presetMessagesSchema = z
  .array(
    z.object({
      // An empty role is the user's.
      role: z
        .preprocess(
          (role) => (typeof role === 'string' && role.trim() !== '' ? role.trim() : 'user'),
          z.enum(['system', 'user', 'assistant']),
        )
        .meta({ label: 'Role', description: 'system, user or assistant; empty: user.' }),
      content: optionalText('Content', 'The text, with ${msg.*}, ${metadata.*}, ${vars.*} templates.'),
    }),
  )
  .max(100)
  .default([])
  .meta({
    label: 'Messages',
    description:
      'Preset messages (role system, user or assistant; content templated), sent instead of the input data unless it is {"messages": [...]}.',
  });

export interface PresetMessage {
  role: Role;
  content: ExprTemplate;
}

export function compilePresets(
  messages: ReadonlyArray<{ role: Role; content: string }>,
  where: string,
): PresetMessage[] {
  return messages.map((entry, index) => ({
    role: entry.role,
    content: compileExprTemplate(entry.content, `${where} messages[${index}]`),
  }));
}

export function renderPresets(
  presets: readonly PresetMessage[],
  env: Record<string, unknown>,
): ChatMessage[] {
  return presets.map(({ role, content }) => ({ role, content: renderAsString(content, env) }));
}
