// Rule chains as human-readable JSON files under the data root:
//   agents/<agentId>/agent.json         the agent's own chain
//   agents/<agentId>/rules/<id>.json    chains that belong to that agent
//   rules/<id>.json                     global chains
// Files may be dropped in or edited by hand; scan() and find() read what is on disk.
import { readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { isValidId } from '../core/id-schema.ts';

export interface ChainLocation {
  id: string;
  /** The agent the chain belongs to: itself for an agent, its owner for an agent-level chain. */
  agentId: string | undefined;
  kind: 'agent' | 'rule';
  path: string;
}

export interface ChainFile extends ChainLocation {
  /** The parsed JSON, or undefined when the file is not valid JSON. */
  json: unknown;
  /** Why the file could not be read or parsed. */
  error: string | undefined;
}

async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export class ChainFileStore {
  constructor(private readonly root: string) {}

  agentDir(agentId: string): string {
    return join(this.root, 'agents', agentId);
  }

  locate(id: string, kind: 'agent' | 'rule', agentId: string | undefined): ChainLocation {
    if (kind === 'agent') return { id, agentId: id, kind, path: join(this.agentDir(id), 'agent.json') };
    const path = agentId
      ? join(this.agentDir(agentId), 'rules', `${id}.json`)
      : join(this.root, 'rules', `${id}.json`);
    return { id, agentId, kind, path };
  }

  /** Every chain file on disk (agents, agent-level chains, global chains). */
  async scan(): Promise<ChainLocation[]> {
    const found: ChainLocation[] = [];
    for (const agentId of (await listDir(join(this.root, 'agents'))).filter(isValidId)) {
      const agentFiles = await listDir(this.agentDir(agentId));
      if (agentFiles.includes('agent.json')) found.push(this.locate(agentId, 'agent', agentId));
      for (const name of await listDir(join(this.agentDir(agentId), 'rules'))) {
        const id = name.slice(0, -'.json'.length);
        if (name.endsWith('.json') && isValidId(id)) found.push(this.locate(id, 'rule', agentId));
      }
    }
    for (const name of await listDir(join(this.root, 'rules'))) {
      const id = name.slice(0, -'.json'.length);
      if (name.endsWith('.json') && isValidId(id)) found.push(this.locate(id, 'rule', undefined));
    }
    return found;
  }

  async read(location: ChainLocation): Promise<ChainFile> {
    let text: string;
    try {
      text = await readFile(location.path, 'utf8');
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'the file does not exist'
          : 'the file cannot be read';
      return { ...location, json: undefined, error: `cannot read ${this.display(location)}: ${reason}` };
    }
    try {
      return { ...location, json: JSON.parse(text) as unknown, error: undefined };
    } catch (error) {
      return {
        ...location,
        json: undefined,
        error: `${this.display(location)} is not valid JSON: ${(error as Error).message}`,
      };
    }
  }

  /** The path relative to the data root: errors shown through the API do not reveal server folders. */
  display(location: ChainLocation): string {
    return relative(this.root, location.path);
  }

  async write(location: ChainLocation, definition: unknown): Promise<void> {
    await writeFileAtomic(location.path, `${JSON.stringify(definition, null, 2)}\n`);
  }

  async remove(location: ChainLocation): Promise<void> {
    if (location.kind === 'agent') {
      await rm(this.agentDir(location.id), { recursive: true, force: true });
      return;
    }
    await unlink(location.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}
