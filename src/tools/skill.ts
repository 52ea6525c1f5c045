// The `skill` tool: returns a skill's whole SKILL.md on demand, the agent's own (workspace
// `skills/`) first, then the global one. The system prompt lists only names and descriptions.
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { SkillFolder } from '../skills/skill-store.ts';
import type { Tool, ToolContext } from './types.ts';
import { builtinTool, toolArguments } from './tool-arguments.ts';

const skillArguments = toolArguments(
  'skill',
  z.object({ name: z.string().min(1).max(64).describe('Name of the skill, as listed in the system prompt') }),
);

/** The skill folders of an agent, most specific first. */
export function skillFolders(context: Pick<ToolContext, 'workspaceDir' | 'globalSkillsDir'>): SkillFolder[] {
  const folders = [new SkillFolder(join(context.workspaceDir, 'skills'))];
  if (context.globalSkillsDir) folders.push(new SkillFolder(context.globalSkillsDir));
  return folders;
}

export function createSkillTool(): Tool {
  return builtinTool({
    name: 'skill',
    description:
      'Read the full instructions of one of the skills listed in the system prompt, by name. Call it before doing a task a skill covers.',
    arguments: skillArguments,
    async execute({ name }, context) {
      const folders = skillFolders(context);
      for (const folder of folders) {
        const text = await folder.readRaw(name);
        if (text !== undefined) return text;
      }
      const names = new Set<string>();
      for (const folder of folders) for (const skill of await folder.list()) names.add(skill.name);
      const known = [...names].sort();
      throw new AppError(
        'not-found',
        `unknown skill "${name}"; available: ${known.length > 0 ? known.join(', ') : '(none)'}`,
      );
    },
  });
}
