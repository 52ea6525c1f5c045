// Shapes of the memory resource: search over an agent's memory files, and their list.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';

export const memoryParams = z.object({ agentId: idParam });

export const memorySearchQuery = z.object({
  q: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
  limit: z.coerce.number().int().min(1, 'must be at least 1').max(50, 'must be at most 50').default(10),
});

export const memorySearchAnswer = z.object({
  results: z.array(
    z.object({
      path: z.string().meta({ description: 'MEMORY.md or memory/<name>.md' }),
      startLine: z.int().meta({ description: '1-based' }),
      endLine: z.int().meta({ description: '1-based, inclusive' }),
      score: z.number().meta({ description: 'higher is better; hits under the threshold are left out' }),
      snippet: z.string(),
    }),
  ),
});

export const memoryFilesAnswer = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      size: z.int(),
      modifiedAt: z.string().meta({ description: 'ISO 8601 UTC' }),
    }),
  ),
});

export type MemorySearchQuery = z.infer<typeof memorySearchQuery>;
export type MemorySearchAnswer = z.infer<typeof memorySearchAnswer>;
export type MemoryFilesAnswer = z.infer<typeof memoryFilesAnswer>;
