// The system prompt of an agent turn: the node's templated prompt, then the agent's workspace
// files that shape it (each capped), in a fixed order.
import { readdir, readFile } from 'node:fs/promises';
import { pathResolver, type Template } from '../template.ts';

export const PROMPT_FILES = [
  'AGENTS.md',
  'SOUL.md',
  'IDENTITY.md',
  'USER.md',
  'TOOLS.md',
  'MEMORY.md',
] as const;
export const PROMPT_FILE_CAP = 20_000;

async function readCapped(path: string, cap: number): Promise<string | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    return text.length > cap ? `${text.slice(0, cap)}\n[... truncated at ${cap} characters]` : text;
  } catch {
    return undefined;
  }
}

export interface PromptContext {
  chainId: string;
  workspaceDir: string;
  vars: Record<string, string>;
  globals: () => Record<string, unknown>;
  listing: FolderListing;
  /** Resolves a workspace-relative path safely (refusing escapes), for ${include(path)}. */
  resolvePath: (path: string) => Promise<string>;
}

/**
 * The names in a workspace folder, listed once and kept for a second: one listing replaces a failed
 * lookup per missing prompt file, a busy agent's turns share it, and a file added by hand counts
 * from the next second on.
 */
export class FolderListing {
  private at = 0;
  private names: Promise<Set<string>> | undefined;
  private folder = '';

  constructor(private readonly ttlMs = 1000) {}

  get(folder: string): Promise<Set<string>> {
    const now = Date.now();
    if (this.names && this.folder === folder && now - this.at < this.ttlMs) return this.names;
    this.folder = folder;
    this.at = now;
    this.names = readdir(folder).then(
      (entries) => new Set(entries),
      () => new Set<string>(),
    );
    return this.names;
  }
}

const INCLUDE = /^include\((.+)\)$/;

export async function renderSystemPrompt(template: Template, context: PromptContext): Promise<string> {
  // include() needs I/O, so its files are read first and the template then renders synchronously.
  const includes = new Map<string, string>();
  for (const expression of template.expressions()) {
    const match = INCLUDE.exec(expression);
    const path = match?.[1]?.trim().replace(/^['"]|['"]$/g, '');
    if (!path || includes.has(expression)) continue;
    try {
      includes.set(expression, (await readCapped(await context.resolvePath(path), PROMPT_FILE_CAP)) ?? '');
    } catch {
      includes.set(expression, '');
    }
  }
  const byPath = pathResolver({
    ruleChain: { id: context.chainId },
    vars: context.vars,
    global: context.globals,
  });
  const prompt = template.render((expression) => {
    if (expression === 'now()') return new Date().toISOString();
    return includes.get(expression) ?? byPath(expression);
  });
  const sections = [prompt];
  const present = await context.listing.get(context.workspaceDir);
  for (const name of PROMPT_FILES) {
    if (!present.has(name)) continue;
    // Resolved like any workspace path, so a link to a file outside the workspace is not read.
    const path = await context.resolvePath(name).catch(() => undefined);
    const text = path ? await readCapped(path, PROMPT_FILE_CAP) : undefined;
    if (text?.trim()) sections.push(`## ${name}\n\n${text.trim()}`);
  }
  return sections.join('\n\n');
}
