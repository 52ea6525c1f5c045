// The system prompt of an agent turn: the node's templated prompt, then the agent's workspace
// files that shape it (each capped), in a fixed order, then a compact list of the agent's skills.
import { readdir } from 'node:fs/promises';
import type { SkillFolder } from '../../skills/skill-store.ts';
import { readRegularFile } from '../../core/open-regular-file.ts';
import { readData } from '../message.ts';
import { pathResolver, type Template } from '../template.ts';
import type { RuleMessage } from '../types.ts';

export const PROMPT_FILES = [
  'AGENTS.md',
  'SOUL.md',
  'IDENTITY.md',
  'USER.md',
  'TOOLS.md',
  'MEMORY.md',
] as const;
export const PROMPT_FILE_CAP = 20_000;

// Only regular files are read (a FIFO named AGENTS.md would stall the server's file I/O), and only
// their head: UTF-8 spends at most three bytes on a UTF-16 unit, so `cap * 3 + 4` bytes hold more
// than `cap` characters whenever the file does.
async function readCapped(path: string, cap: number): Promise<string | undefined> {
  try {
    const text = (await readRegularFile(path, path, cap * 3 + 4)).toString('utf8');
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
  /** The agent's skills (local ones shadowing global ones), for the skills section. */
  skills?: () => Promise<SkillSummary[]>;
  /** The incoming message, for `${msg.x}`, `${metadata.x}`, `${msgType}`, `${dataType}` (RuleGo allows them). */
  message?: RuleMessage;
  /** The outputs of the nodes the prompt names, by node id, for `${node1.msg.x}`. */
  nodeOutputs?: Record<string, unknown>;
}

export interface SkillSummary {
  name: string;
  description: string;
}

export const PROMPT_SKILLS_CAP = 50;
export const PROMPT_SKILLS_BYTES = 4096;

/**
 * Names and descriptions of the skills in some folders (most specific first, shadowing the rest),
 * listed once and kept for a second, as FolderListing does for the workspace files.
 */
export class SkillListing {
  private at = 0;
  private skills: Promise<SkillSummary[]> | undefined;
  private key = '';

  constructor(private readonly ttlMs = 1000) {}

  get(folders: SkillFolder[]): Promise<SkillSummary[]> {
    const now = Date.now();
    const key = folders.map((folder) => folder.root).join('\0');
    if (this.skills && this.key === key && now - this.at < this.ttlMs) return this.skills;
    this.key = key;
    this.at = now;
    this.skills = Promise.all(folders.map((folder) => folder.list())).then(
      (lists) => {
        const byName = new Map<string, SkillSummary>();
        for (const list of lists) {
          for (const { name, description } of list)
            if (!byName.has(name)) byName.set(name, { name, description });
        }
        return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      },
      () => [],
    );
    return this.skills;
  }
}

/** The skills section: one `- name: description` line each, capped in count and size. */
export function skillsSection(skills: SkillSummary[]): string | undefined {
  if (skills.length === 0) return undefined;
  const lines: string[] = [];
  let bytes = 0;
  for (const skill of skills.slice(0, PROMPT_SKILLS_CAP)) {
    const description = skill.description.replace(/\s+/g, ' ').trim();
    const line = `- ${skill.name}${description ? `: ${description.slice(0, 300)}` : ''}`;
    if (bytes + line.length > PROMPT_SKILLS_BYTES) break;
    lines.push(line);
    bytes += line.length + 1;
  }
  const omitted = skills.length - lines.length;
  if (omitted > 0) lines.push(`- (${omitted} more not listed)`);
  return [
    '## Skills',
    '',
    'Skills available to you. Before a task one of them covers, call the `skill` tool with its name to read its full instructions.',
    '',
    ...lines,
  ].join('\n');
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
  const { message } = context;
  const byPath = pathResolver({
    ...context.nodeOutputs,
    ruleChain: { id: context.chainId },
    vars: context.vars,
    global: context.globals,
    ...(message ? { msg: () => readData(message), metadata: message.metadata } : {}),
  });
  const prompt = template.render((expression) => {
    if (expression === 'now()') return new Date().toISOString();
    if (message && expression === 'msgType') return message.type;
    if (message && expression === 'dataType') return message.dataType;
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
  const skills = context.skills ? skillsSection(await context.skills()) : undefined;
  if (skills) sections.push(skills);
  return sections.join('\n\n');
}
