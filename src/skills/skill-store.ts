// Skills on disk (AgentSkills format): a folder `<name>/` holding SKILL.md (YAML front matter with
// name and description, then Markdown) plus optional files. A SkillFolder is one root of such
// folders: the global root under the data root, or an agent workspace's `skills/`. Anything that
// is not a real folder with a readable, well-formed SKILL.md is skipped, never fatal.
//
// The skills module: this store and skill-archive.ts (zip uploads) here; the `skill` tool that
// agents call is tools/skill.ts (beside the other built-in tools, behind the one Tool interface);
// the REST resource is resources/skills/; the skills list in the prompt is engine/ai/system-prompt.ts.
import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { conflict, invalid, notFound } from '../core/errors.ts';
import { KeyedMutex } from '../core/keyed-mutex.ts';
import { readRegularFile } from '../core/open-regular-file.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_SKILL_BYTES, SKILL_NAME } from './skill-limits.ts';

export const SKILL_FILE = 'SKILL.md';

export interface SkillText {
  name: string;
  description: string;
  /** The Markdown after the front matter. */
  content: string;
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export function isSkillName(name: string): boolean {
  return SKILL_NAME.test(name);
}

export function requireSkillName(name: string): void {
  if (!isSkillName(name)) throw invalid(`invalid skill name "${name}": use 1-64 letters, digits, "-" or "_"`);
}

/** Front matter and body of a SKILL.md; undefined when it has no well-formed front matter. */
export function parseSkillFile(
  text: string,
): { name?: string; description: string; content: string } | undefined {
  const match = FRONT_MATTER.exec(text);
  if (!match) return undefined;
  let meta: unknown;
  try {
    meta = parse(match[1] ?? '');
  } catch {
    return undefined;
  }
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  const { name, description } = meta as { name?: unknown; description?: unknown };
  if (description !== undefined && typeof description !== 'string') return undefined;
  const content = text.slice(match[0].length).replace(/^\r?\n/, '');
  return { ...(typeof name === 'string' ? { name } : {}), description: description ?? '', content };
}

export function formatSkillFile(skill: SkillText): string {
  const meta = stringify({ name: skill.name, description: skill.description }).trimEnd();
  return `---\n${meta}\n---\n\n${skill.content}`;
}

/** Checks a skill before it is written: name, description length, whole-file size. */
export function validateSkill(skill: SkillText): string {
  requireSkillName(skill.name);
  if (skill.description.length > MAX_DESCRIPTION_LENGTH) {
    throw invalid(`description is longer than ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  const text = formatSkillFile(skill);
  if (Buffer.byteLength(text) > MAX_SKILL_BYTES) {
    throw invalid(`skill "${skill.name}" is larger than ${MAX_SKILL_BYTES} bytes`);
  }
  return text;
}

async function isRealFolder(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return info?.isDirectory() === true;
}

// Writes to one root are serialized, so a create and a copy of the same name cannot both win.
const writes = new KeyedMutex();

export class SkillFolder {
  constructor(readonly root: string) {}

  /** The whole SKILL.md of a skill, or undefined when it is missing, a link or too large. */
  async readRaw(name: string): Promise<string | undefined> {
    if (!isSkillName(name) || !(await isRealFolder(this.root))) return undefined;
    const folder = join(this.root, name);
    if (!(await isRealFolder(folder))) return undefined;
    // Through one non-blocking handle: a SKILL.md swapped for a FIFO is refused, never waited on.
    const bytes = await readRegularFile(join(folder, SKILL_FILE), SKILL_FILE, MAX_SKILL_BYTES + 1).catch(
      () => undefined,
    );
    if (!bytes || bytes.length > MAX_SKILL_BYTES) return undefined;
    return bytes.toString('utf8');
  }

  async read(name: string): Promise<SkillText | undefined> {
    const text = await this.readRaw(name);
    const parsed = text === undefined ? undefined : parseSkillFile(text);
    return parsed && { name, description: parsed.description, content: parsed.content };
  }

  async get(name: string): Promise<SkillText> {
    requireSkillName(name);
    const skill = await this.read(name);
    if (!skill) throw notFound(`skill "${name}" not found`);
    return skill;
  }

  /** Every well-formed skill, by name. */
  async list(): Promise<SkillText[]> {
    if (!(await isRealFolder(this.root))) return [];
    const names = (await readdir(this.root).catch(() => [] as string[])).filter(isSkillName).sort();
    const skills = await Promise.all(names.map((name) => this.read(name)));
    return skills.filter((skill): skill is SkillText => skill !== undefined);
  }

  async exists(name: string): Promise<boolean> {
    return (await lstat(join(this.root, name)).catch(() => undefined)) !== undefined;
  }

  async create(skill: SkillText): Promise<void> {
    const text = validateSkill(skill);
    await this.install(skill.name, async (folder) => {
      await writeFile(join(folder, SKILL_FILE), text);
    });
  }

  async update(skill: SkillText): Promise<void> {
    const text = validateSkill(skill);
    await writes.run(this.root, async () => {
      await this.get(skill.name);
      await writeFileAtomic(join(this.root, skill.name, SKILL_FILE), text);
    });
  }

  async remove(name: string): Promise<void> {
    requireSkillName(name);
    await writes.run(this.root, async () => {
      const folder = join(this.root, name);
      if (!(await this.exists(name))) throw notFound(`skill "${name}" not found`);
      // Moved aside first, so a crash never leaves a half-deleted skill under its name.
      const trash = join(this.root, `.deleted-${name}-${randomBytes(6).toString('hex')}`);
      await rename(folder, trash);
      await rm(trash, { recursive: true, force: true });
    });
  }

  /**
   * Fills a temporary folder next to the target with `fill`, then renames it into place: the skill
   * appears whole or not at all. 409 when the name is taken.
   */
  async install(name: string, fill: (folder: string) => Promise<void>): Promise<void> {
    requireSkillName(name);
    await mkdir(this.root, { recursive: true });
    if (!(await isRealFolder(this.root))) throw invalid('the skills folder is not a folder');
    await writes.run(this.root, async () => {
      if (await this.exists(name)) throw conflict(`skill "${name}" already exists`);
      const temp = join(this.root, `.tmp-${name}-${randomBytes(6).toString('hex')}`);
      await mkdir(temp);
      try {
        await fill(temp);
        await syncFolder(temp);
        await rename(temp, join(this.root, name));
      } catch (error) {
        await rm(temp, { recursive: true, force: true });
        throw error;
      }
      await syncFolder(this.root);
    });
  }
}

async function syncFolder(path: string): Promise<void> {
  // O_DIRECTORY: a folder swapped for a FIFO is refused at once instead of blocking a thread.
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY).catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}
