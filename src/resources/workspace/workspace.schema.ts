// Shapes of the workspace resource: paths are relative to the agent's workspace root.
import { z } from 'zod';
import { successAnswer } from '../../http/answers.ts';

const workspacePath = z
  .string()
  .min(1, 'must not be empty')
  .max(4096)
  .meta({ description: 'Path relative to the workspace root' });

export const pathQuery = z.object({ path: workspacePath });
export const listQuery = z.object({
  path: z.string().max(4096).default('').meta({ description: 'Folder relative to the workspace root' }),
});
export const renameBody = z.object({
  newName: z
    .string()
    .min(1, 'must not be empty')
    .max(255)
    .refine(
      (name) => name !== '.' && name !== '..' && !/[/\\\0]/.test(name),
      'must be a single file or folder name, without "/", "\\", NUL, "." or ".."',
    ),
});
export const createFileBody = z.object({ path: workspacePath, content: z.string().default('') });
export const createDirBody = z.object({ path: workspacePath });
export const contentSchema = z.object({ content: z.string() });
export const entrySchema = z.object({
  name: z.string(),
  isDir: z.boolean(),
  size: z.number().int().optional().meta({ description: 'Files only' }),
  modTime: z.string().optional().meta({ description: 'Files only: ISO 8601 UTC' }),
});
export const entryList = z.array(entrySchema);
/** Every write answers {success, message}. */
export const done = successAnswer;

export type WorkspaceEntry = z.infer<typeof entrySchema>;
export type FileContent = z.infer<typeof contentSchema>;
