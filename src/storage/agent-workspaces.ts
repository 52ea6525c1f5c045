// Where each agent's workspace lives: <data root>/agents/<id>/workspace, created on first use and
// resolved to its real path once (every turn needs it, and it does not move). The confinement of
// paths inside a workspace is tools/workspace-path.ts.
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChainFileStore } from './chain-files.ts';

export class AgentWorkspaces {
  private readonly resolved = new Map<string, Promise<string>>();

  constructor(private readonly files: ChainFileStore) {}

  /** The real path of the agent's workspace folder, created when missing. */
  resolve(agentId: string): Promise<string> {
    let found = this.resolved.get(agentId);
    if (!found) {
      const path = join(this.files.agentDir(agentId), 'workspace');
      found = mkdir(path, { recursive: true }).then(() => realpath(path));
      found.catch(() => this.resolved.delete(agentId));
      this.resolved.set(agentId, found);
    }
    return found;
  }

  /** Forgets a deleted agent's folder, so an agent created again under its id starts afresh. */
  forget(agentId: string): void {
    this.resolved.delete(agentId);
  }
}
