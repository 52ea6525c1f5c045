import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { AppError } from '../core/errors.ts';
import { toolFactory, filePathArgument } from './tool-arguments.ts';
import { limitField } from './tool-config.ts';
import { resolveInWorkspace } from './workspace-path.ts';

export const writeConfigSchema = z.object({
  maxBytes: limitField(1, 10 * 1024 * 1024, 'Size cap (bytes)', 'Largest file the tool may write.'),
});

export type WriteConfig = z.input<typeof writeConfigSchema>;

const writeArguments = z.object({
  path: filePathArgument,
  content: z.string().describe('The complete new content of the file'),
});

/** Creates or replaces a workspace file atomically, creating missing parent folders. */
export const createWriteTool = toolFactory({
  name: 'write',
  description:
    'Create or overwrite a file in the workspace with the given content. Parent folders are created.',
  arguments: writeArguments,
  configSchema: writeConfigSchema,
  async execute({ path, content }, context, settings) {
    const bytes = Buffer.byteLength(content);
    if (bytes > settings.maxBytes) {
      throw new AppError(
        'too-large',
        `content is ${bytes} bytes; the write tool accepts at most ${settings.maxBytes}`,
      );
    }
    const file = await resolveInWorkspace(context.workspaceDir, path);
    const existing = await stat(file).catch(() => undefined);
    if (existing?.isDirectory()) throw new AppError('invalid', `${path} is a directory`);
    // Replacing a FIFO, socket or device would surprise whoever made it; only files are written.
    if (existing && !existing.isFile()) throw new AppError('invalid', `${path} is not a regular file`);
    context.signal.throwIfAborted();
    // Keep the mode of a replaced file, so an edited script stays executable.
    await writeFileAtomic(file, content, existing ? { mode: existing.mode & 0o777 } : {});
    return `wrote ${bytes} bytes to ${path}`;
  },
});
