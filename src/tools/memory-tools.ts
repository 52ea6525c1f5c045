// The memory tools: memory_search and memory_get over the agent's memory files (MEMORY.md and the
// dated notes in memory/), memory_write to append to today's note or to MEMORY.md, and
// session_search over the transcripts the turn's caller may see. They work through the turn's
// MemoryAccess, which binds the agent and the caller's scope.
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { builtinTool, toolArguments } from './tool-arguments.ts';
import type { MemoryAccess, Tool, ToolContext } from './types.ts';

/** The arguments of a keyword search: what to look for and how many hits. */
function searchArguments(toolName: string, query: string) {
  return toolArguments(
    toolName,
    z.object({
      query: z.string().min(1).max(1000).describe(query),
      limit: z.int().min(1).max(50).default(5).describe('Most hits returned (default 5)'),
    }),
  );
}

const memorySearchArguments = searchArguments(
  'memory_search',
  'What to look for: names, identifiers, topics',
);
const getArguments = toolArguments(
  'memory_get',
  z.object({
    path: z.string().min(1).max(300).describe('MEMORY.md or memory/<name>.md, as memory_search gives it'),
    from: z.int().min(1).default(1).describe('First line (1-based)'),
    lines: z.int().min(1).max(2000).default(200).describe('How many lines'),
  }),
);
const writeArguments = toolArguments(
  'memory_write',
  z.object({
    text: z.string().min(1).max(20_000).describe('What to remember, as Markdown lines'),
    target: z
      .enum(['today', 'memory'])
      .default('today')
      .describe("'today': append to today's note memory/YYYY-MM-DD.md; 'memory': append to MEMORY.md"),
  }),
);
const sessionArguments = searchArguments('session_search', 'What to look for in earlier conversations');

function memoryOf(context: ToolContext): MemoryAccess {
  if (!context.memory) throw new AppError('unavailable', 'memory is not available in this run');
  return context.memory;
}

/** A keyword search over the turn's memory: each hit in `format`, blank lines between them. */
function searchTool<Hit>(spec: {
  name: string;
  description: string;
  arguments: ReturnType<typeof searchArguments>;
  search: (memory: MemoryAccess, query: string, limit: number) => Promise<Hit[]>;
  format: (hit: Hit) => string;
}): Tool {
  return builtinTool({
    name: spec.name,
    description: spec.description,
    arguments: spec.arguments,
    async execute({ query, limit }, context) {
      const hits = await spec.search(memoryOf(context), query, limit);
      return hits.length > 0 ? hits.map(spec.format).join('\n\n') : 'no results';
    },
  });
}

export function createMemorySearchTool(): Tool {
  return searchTool({
    name: 'memory_search',
    description:
      'Search your memory files (MEMORY.md and the dated notes in memory/) by keywords; hits give path, lines and text. Use it before answering about people, earlier work, decisions or identifiers you may have written down.',
    arguments: memorySearchArguments,
    search: (memory, query, limit) => memory.search(query, limit),
    format: (hit) => `${hit.path}:${hit.startLine}-${hit.endLine} (score ${hit.score})\n${hit.snippet}`,
  });
}

export function createMemoryGetTool(): Tool {
  return builtinTool({
    name: 'memory_get',
    description: 'Read lines of one of your memory files (MEMORY.md or memory/<name>.md).',
    arguments: getArguments,
    async execute({ path, from, lines: count }, context) {
      const { text, total } = await memoryOf(context).get(path, from, count);
      return `${path} (lines ${from}-${Math.min(total, from + count - 1)} of ${total})\n${text}`;
    },
  });
}

export function createMemoryWriteTool(): Tool {
  return builtinTool({
    name: 'memory_write',
    description:
      "Remember something for later conversations: append lines to today's note (target 'today', the default) or to MEMORY.md (target 'memory', for lasting facts). Appends only; nothing is overwritten. Keep identifiers (order numbers, ids, URLs, amounts) exact.",
    arguments: writeArguments,
    async execute({ text, target }, context) {
      const path = await memoryOf(context).write(target, text);
      return `appended to ${path}`;
    },
  });
}

export function createSessionSearchTool(): Tool {
  return searchTool({
    name: 'session_search',
    description:
      'Search the transcripts of your earlier conversations with this user or group (older, compacted parts included) by keywords.',
    arguments: sessionArguments,
    search: (memory, query, limit) => memory.searchSessions(query, limit),
    format: (hit) => `[${hit.at} ${hit.role}, message ${hit.messageId}] (score ${hit.score})\n${hit.snippet}`,
  });
}
