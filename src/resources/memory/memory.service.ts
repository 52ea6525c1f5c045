// An agent's memory files for the REST API: keyword search (best first, above the threshold) and
// the list of files. Reading and writing them goes through the workspace resource.
import type { MemoryIndex } from '../../storage/memory-index.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type { MemoryFilesAnswer, MemorySearchAnswer, MemorySearchQuery } from './memory.schema.ts';

export class MemoryService {
  constructor(
    private readonly memory: MemoryIndex,
    private readonly agents: AgentCheck,
  ) {}

  async search(agentId: string, query: MemorySearchQuery): Promise<MemorySearchAnswer> {
    this.agents.requireAgent(agentId);
    return { results: await this.memory.search(agentId, query.q, query.limit) };
  }

  async files(agentId: string): Promise<MemoryFilesAnswer> {
    this.agents.requireAgent(agentId);
    const files = await this.memory.files(agentId);
    return {
      files: files.map((file) => ({ ...file, modifiedAt: new Date(file.modifiedAt).toISOString() })),
    };
  }
}
