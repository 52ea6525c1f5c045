import type { Stats } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { AppError } from '../core/errors.ts';
import type { Tool } from './types.ts';
import { openRegularFile } from '../core/open-regular-file.ts';
import { builtinTool, filePathArgument, toolArguments } from './tool-arguments.ts';
import { resolveInWorkspace } from './workspace-path.ts';

// Editing loads the whole file; beyond this size, write or bash is the better tool.
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

const editArguments = toolArguments(
  'edit',
  z.object({
    path: filePathArgument,
    oldText: z
      .string()
      .min(1)
      .describe('Exact text to replace, including whitespace; must occur once unless replaceAll'),
    newText: z.string().describe('Replacement text'),
    replaceAll: z.boolean().optional().describe('Replace every occurrence instead of exactly one'),
  }),
);

/** Replaces an exact piece of text in a workspace file; refuses when it is missing or ambiguous. */
export function createEditTool(): Tool {
  return builtinTool({
    name: 'edit',
    description:
      'Edit a workspace file by replacing oldText with newText. oldText must match exactly and occur exactly once, unless replaceAll is true.',
    arguments: editArguments,
    async execute({ path, oldText, newText, replaceAll = false }, context) {
      const file = await resolveInWorkspace(context.workspaceDir, path, { mustExist: true });
      const { info, content } = await readForEdit(file, path);
      const count = content.split(oldText).length - 1;
      if (count === 0) throw new AppError('invalid', `oldText was not found in ${path}`);
      if (count > 1 && !replaceAll) {
        throw new AppError(
          'invalid',
          `oldText occurs ${count} times in ${path}; include more surrounding text to make it unique, or set replaceAll`,
        );
      }
      context.signal.throwIfAborted();
      // A function replacement keeps `$&`-style patterns in newText literal.
      const updated = replaceAll
        ? content.split(oldText).join(newText)
        : content.replace(oldText, () => newText);
      await writeFileAtomic(file, updated, { mode: info.mode & 0o777 });
      return `replaced ${replaceAll ? count : 1} occurrence${count === 1 || !replaceAll ? '' : 's'} in ${path}`;
    },
  });
}

async function readForEdit(file: string, path: string): Promise<{ info: Stats; content: string }> {
  const { handle, info } = await openRegularFile(file, path);
  try {
    if (info.size > MAX_EDIT_BYTES)
      throw new AppError('too-large', `${path} is too large to edit (${info.size} bytes)`);
    return { info, content: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}
