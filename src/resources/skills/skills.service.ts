// Skills for the REST API: global ones under <data root>/skills, local ones in an agent's workspace
// `skills/`. A local skill shadows a global one of the same name when both scopes are listed.
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { conflict, invalid } from '../../core/errors.ts';
import { readSkillArchive, type ArchiveFile } from '../../skills/skill-archive.ts';
import { MAX_SKILL_BYTES } from '../../skills/skill-limits.ts';
import {
  SKILL_FILE,
  SkillFolder,
  formatSkillFile,
  isSkillName,
  parseSkillFile,
  requireSkillName,
  type SkillText,
} from '../../skills/skill-store.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type { CopyBody, PlaceQuery, Skill, SkillScope } from './skills.schema.ts';

/** Where a skill lives: the global root, or the workspace of `agentId`. */
export interface SkillPlace {
  scope: SkillScope;
  agentId?: string | undefined;
}

/** Reads may name every scope (`all`); the local one needs an agent. */
function checkScope(scope: SkillScope | 'all', agentId: string | undefined): void {
  if (scope === 'local' && !agentId) throw invalid('agentId is required when scope is "local"');
}

/** An explicit scope wins; otherwise local when an agent is named, else global. */
function placeOf(where: PlaceQuery): SkillPlace {
  const scope = where.scope ?? (where.agentId ? 'local' : 'global');
  checkScope(scope, where.agentId);
  return { scope, agentId: where.agentId };
}

export class SkillsService {
  private readonly global: SkillFolder;

  constructor(
    private readonly agents: AgentCheck,
    private readonly workspace: (agentId: string) => Promise<string>,
    globalDir: string,
  ) {
    this.global = new SkillFolder(globalDir);
  }

  /** 404 for an unknown agent (an upload checks it before reading the archive). */
  requireAgent(agentId: string): void {
    this.agents.requireAgent(agentId);
  }

  private async folder(place: SkillPlace): Promise<SkillFolder> {
    if (place.scope === 'global') return this.global;
    if (!place.agentId) throw invalid('agentId is required for the local scope');
    this.requireAgent(place.agentId);
    return new SkillFolder(join(await this.workspace(place.agentId), 'skills'));
  }

  /** `all`: with an agent, its local skills and the global ones they do not shadow; else global. */
  async list(scope: SkillScope | 'all', agentId?: string): Promise<Skill[]> {
    checkScope(scope, agentId);
    if (scope !== 'all') {
      const folder = await this.folder({ scope, agentId });
      return (await folder.list()).map((skill) => ({ ...skill, scope }));
    }
    const global = (await this.global.list()).map((skill): Skill => ({ ...skill, scope: 'global' }));
    if (!agentId) return global;
    const local = await this.list('local', agentId);
    const shadowed = new Set(local.map((skill) => skill.name));
    return [...local, ...global.filter((skill) => !shadowed.has(skill.name))].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  }

  async get(name: string, scope: SkillScope | 'all', agentId?: string): Promise<Skill> {
    checkScope(scope, agentId);
    requireSkillName(name);
    if (scope === 'all') {
      if (agentId) {
        const local = await (await this.folder({ scope: 'local', agentId })).read(name);
        if (local) return { ...local, scope: 'local' };
      }
      return { ...(await this.global.get(name)), scope: 'global' };
    }
    return { ...(await (await this.folder({ scope, agentId })).get(name)), scope };
  }

  async create(where: PlaceQuery, skill: SkillText): Promise<Skill> {
    const place = placeOf(where);
    await (await this.folder(place)).create(skill);
    return { ...skill, scope: place.scope };
  }

  /** Changes the description or content; a skill keeps its name (`changes.name` may only repeat it). */
  async update(
    where: PlaceQuery,
    name: string,
    changes: { name?: string | undefined; description?: string | undefined; content?: string | undefined },
  ): Promise<Skill> {
    if (changes.name !== undefined && changes.name !== name) {
      throw invalid(
        'body.name: a skill cannot be renamed by PUT; use POST /skills/copy and delete the old one',
      );
    }
    const place = placeOf(where);
    const folder = await this.folder(place);
    const current = await folder.get(name);
    const next: SkillText = {
      name,
      description: changes.description ?? current.description,
      content: changes.content ?? current.content,
    };
    await folder.update(next);
    return { ...next, scope: place.scope };
  }

  async remove(where: PlaceQuery, name: string): Promise<void> {
    await (await this.folder(placeOf(where))).remove(name);
  }

  /**
   * Copies the whole skill folder (SKILL.md and its files); the copy's front matter gets its new name.
   * Source: `name` in `scope`; target: `targetScope`, `targetAgentId` (default agentId), `newName`
   * (default name).
   */
  async copy(request: CopyBody): Promise<Skill> {
    const { name, scope, agentId, targetAgentId = agentId, newName = name } = request;
    if (scope === 'local' && !agentId) throw invalid('agentId is required when scope is "local"');
    if (request.targetScope === 'local' && !targetAgentId) {
      throw invalid('targetAgentId (or agentId) is required when targetScope is "local"');
    }
    const to: SkillPlace = { scope: request.targetScope, agentId: targetAgentId };
    requireSkillName(newName);
    const source = await this.get(name, scope, agentId);
    const sourceFolder = await this.folder({ scope: source.scope, agentId });
    const target = await this.folder(to);
    if (sourceFolder.root === target.root && name === newName) {
      throw conflict(`skill "${newName}" already exists`);
    }
    const copied: SkillText = { ...source, name: newName };
    await target.install(newName, async (folder) => {
      await copyFiles(join(sourceFolder.root, name), folder);
      await writeFile(join(folder, SKILL_FILE), formatCopy(copied, await sourceFolder.readRaw(name)));
    });
    return { ...copied, scope: to.scope };
  }

  /**
   * Installs the skills of a zip: one or more `<name>/SKILL.md` folders, or a single root SKILL.md
   * named by its front matter. Everything is checked before the first write; 409 if a name is taken.
   */
  async upload(where: PlaceQuery, archive: Uint8Array): Promise<Skill[]> {
    const place = placeOf(where);
    const folder = await this.folder(place);
    const skills = groupSkills(await readSkillArchive(archive));
    for (const skill of skills) {
      if (await folder.exists(skill.name)) throw conflict(`skill "${skill.name}" already exists`);
    }
    const installed: Skill[] = [];
    for (const skill of skills) {
      await folder.install(skill.name, async (target) => {
        for (const file of skill.files) {
          const path = join(target, file.path);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, file.data, { flag: 'wx' });
        }
      });
      installed.push({ ...skill.text, scope: place.scope });
    }
    return installed;
  }
}

interface ArchivedSkill {
  name: string;
  text: SkillText;
  files: ArchiveFile[];
}

function skillText(name: string, file: ArchiveFile | undefined, where: string): SkillText {
  if (!file) throw invalid(`${where} has no ${SKILL_FILE}; nothing was installed`);
  if (file.data.byteLength > MAX_SKILL_BYTES) {
    throw invalid(`${SKILL_FILE} in ${where} is larger than ${MAX_SKILL_BYTES} bytes`);
  }
  const parsed = parseSkillFile(Buffer.from(file.data).toString('utf8'));
  if (!parsed) throw invalid(`${SKILL_FILE} in ${where} has no valid YAML front matter (name, description)`);
  return { name, description: parsed.description, content: parsed.content };
}

const IGNORED = /^(__MACOSX\/|.*(^|\/)\.DS_Store$)/;

function groupSkills(all: ArchiveFile[]): ArchivedSkill[] {
  const files = all.filter((file) => !IGNORED.test(file.path));
  if (files.length === 0) throw invalid('the archive holds no files');
  const root = files.find((file) => file.path === SKILL_FILE);
  if (root) {
    const parsed = parseSkillFile(Buffer.from(root.data).toString('utf8'));
    const name = parsed?.name ?? '';
    if (!isSkillName(name)) {
      throw invalid(`a root ${SKILL_FILE} needs a front matter name of 1-64 letters, digits, "-" or "_"`);
    }
    return [{ name, text: skillText(name, root, 'the archive root'), files }];
  }
  const byFolder = new Map<string, ArchiveFile[]>();
  for (const file of files) {
    const slash = file.path.indexOf('/');
    if (slash === -1) {
      throw invalid(`archive file "${file.path}" is outside a skill folder; nothing was installed`);
    }
    const folder = file.path.slice(0, slash);
    const list = byFolder.get(folder) ?? [];
    list.push({ path: file.path.slice(slash + 1), data: file.data });
    byFolder.set(folder, list);
  }
  return [...byFolder].map(([name, list]) => {
    if (!isSkillName(name))
      throw invalid(`invalid skill folder name "${name}": use 1-64 letters, digits, "-" or "_"`);
    const text = skillText(
      name,
      list.find((file) => file.path === SKILL_FILE),
      `folder "${name}/"`,
    );
    return { name, text, files: list };
  });
}

/** Keeps the source's SKILL.md text, rewriting it only when the copy gets a new name. */
function formatCopy(skill: SkillText, raw: string | undefined): string {
  const parsed = raw === undefined ? undefined : parseSkillFile(raw);
  if (raw !== undefined && parsed?.name === skill.name) return raw;
  return formatSkillFile(skill);
}

// Regular files and folders only: a link inside an agent's skill folder is not followed out.
async function copyFiles(from: string, to: string): Promise<void> {
  for (const name of await readdir(from)) {
    const source = join(from, name);
    const info = await lstat(source);
    if (info.isDirectory()) {
      await mkdir(join(to, name));
      await copyFiles(source, join(to, name));
    } else if (info.isFile()) {
      await writeFile(join(to, name), await readFile(source));
    }
  }
}
