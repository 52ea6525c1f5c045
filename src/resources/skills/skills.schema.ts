// Shapes of the skills resource.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_SKILL_BYTES, SKILL_NAME } from '../../skills/skill-limits.ts';
import { agentParams } from '../agents/agents.schema.ts';

/** Largest upload (a zip of skills), enforced by the multipart parser. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

const skillName = z.string().regex(SKILL_NAME, 'must be 1-64 letters, digits, "-" or "_"');
const description = z.string().max(MAX_DESCRIPTION_LENGTH);
const content = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_SKILL_BYTES)
  .meta({ description: 'Markdown instructions (SKILL.md without its front matter)' });
const targetScope = z.enum(['global', 'local']);
const listScope = z.enum(['all', 'global', 'local']);

export const skillSchema = z.object({
  name: z.string(),
  description: z.string(),
  content: z.string(),
  scope: targetScope,
});
export const skillList = z.array(skillSchema);
export const nameParams = z.object({ name: skillName });
export const agentNameParams = agentParams.extend({ name: skillName });
export const createBody = z.object({ name: skillName, description: description.default(''), content });
export const updateBody = z.object({ description: description.optional(), content: content.optional() });
/** Where a skill is written: `scope` (default: local with an agentId, else global) and `agentId`. */
export const placeQuery = z.object({ scope: targetScope.optional(), agentId: idParam.optional() });
/** Where skills are read: `all` is the agent's local skills first, then the global ones. */
export const findQuery = z.object({ scope: listScope.default('all'), agentId: idParam.optional() });
export const globalCreateBody = createBody.extend(placeQuery.shape);
export const globalUpdateBody = updateBody.extend({ name: skillName.optional(), ...placeQuery.shape });
export const copyBody = z.object({
  name: skillName,
  scope: listScope.default('all'),
  agentId: idParam.optional(),
  targetScope,
  targetAgentId: idParam.optional(),
  newName: skillName.optional(),
});

export type SkillScope = z.infer<typeof targetScope>;
export type Skill = z.infer<typeof skillSchema>;
export type PlaceQuery = z.infer<typeof placeQuery>;
export type CopyBody = z.infer<typeof copyBody>;
