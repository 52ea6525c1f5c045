// Builds the services behind the HTTP app from a config store and a data root. Shared by the
// server and the test harness so both wire the product the same way.
import type { ConfigStore } from './config/config-store.ts';
import { RuleEngine } from './engine/engine.ts';
import { createDefaultRegistry, type NodeRegistry } from './engine/registry.ts';
import { agentTemplate } from './resources/agents/agent-template.ts';
import { ChainService } from './resources/rules/rules.service.ts';
import { ChainFileStore } from './storage/chain-files.ts';

export interface Services {
  registry: NodeRegistry;
  engine: RuleEngine;
  chains: ChainService;
  close(): Promise<void>;
}

export async function createServices(store: ConfigStore): Promise<Services> {
  const config = store.current;
  const registry = createDefaultRegistry();
  const engine = new RuleEngine({
    registry,
    services: {
      scriptTimeoutMs: config.engine.script_timeout_ms,
      scriptMemoryBytes: config.engine.script_memory_mb * 1024 * 1024,
    },
  });
  const files = new ChainFileStore(config.data.root_dir);
  const chains = new ChainService(engine, files, () => agentTemplate());
  await chains.init();
  return {
    registry,
    engine,
    chains,
    async close() {
      await engine.close();
    },
  };
}
