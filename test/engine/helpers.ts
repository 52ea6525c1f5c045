// Helpers of the engine tests: the shared chain builder (test/fakes/builders.ts), and an engine with fresh state.
import { z } from 'zod';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import type { NodeRegistry } from '../../src/engine/registry.ts';
import { RuleEngine } from '../../src/engine/engine.ts';
import type { RuleEngineOptions } from '../../src/engine/engine.ts';
import type { NodeServices, RunEvent } from '../../src/engine/types.ts';
import { chainDefinition, type Link, type NodeSpec } from '../fakes/builders.ts';

export type { Link, NodeSpec } from '../fakes/builders.ts';

/** The shared chain builder, with any further `ruleChain` fields the engine tests set directly. */
export function chain(
  id: string,
  nodes: NodeSpec[],
  links: Link[] = [],
  extra: Record<string, unknown> = {},
) {
  const definition = chainDefinition(id, nodes, links);
  return { ...definition, ruleChain: { ...definition.ruleChain, ...extra } };
}

export const testServices = (overrides: Partial<NodeServices> = {}): NodeServices => ({
  scriptTimeoutMs: 200,
  scriptMemoryBytes: 16 * 1024 * 1024,
  ...overrides,
});

export function createEngine(options: Partial<RuleEngineOptions> = {}): RuleEngine {
  return new RuleEngine({
    ...options,
    registry: options.registry ?? createDefaultRegistry(),
    services: options.services ?? testServices(),
  });
}

/** Collects run events for assertions. */
export function recorder(): { events: RunEvent[]; onEvent: (event: RunEvent) => void } {
  const events: RunEvent[] = [];
  return { events, onEvent: (event) => events.push(event) };
}

/** A promise with its resolver, for nodes that wait on the test. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** What probe nodes saw and did, shared with the test that registered them. */
export interface ProbeLog {
  seen: Array<{ label: string; metadata: Record<string, string>; data: string }>;
  destroyed: string[];
  gate: { promise: Promise<void>; resolve: (value: void) => void };
}

/**
 * A test node type `probe`: records what it sees, optionally sets metadata in place, waits for the
 * test's gate, or throws. It is registered like the ai nodes will be, through `register` alone.
 */
export function registerProbe(registry: NodeRegistry): ProbeLog {
  const log: ProbeLog = { seen: [], destroyed: [], gate: deferred() };
  registry.register({
    type: 'probe',
    label: 'Probe',
    description: 'test node',
    category: 'test',
    relations: ['Success', 'Failure'],
    configSchema: probeConfig,
    create(config) {
      return {
        async process(message) {
          log.seen.push({ label: config.label, metadata: { ...message.metadata }, data: message.data });
          if (config.set) Object.assign(message.metadata, config.set);
          if (config.wait) await log.gate.promise;
          if (config.fail) throw new Error(config.fail);
          return [{ relation: 'Success', message }];
        },
        destroy() {
          log.destroyed.push(config.label);
        },
      };
    },
  });
  return log;
}

const probeConfig = z.object({
  label: z.string(),
  set: z.record(z.string(), z.string()).optional(),
  wait: z.boolean().optional(),
  fail: z.string().optional(),
});
