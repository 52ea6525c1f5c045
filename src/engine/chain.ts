// Turning a parsed definition into a runnable chain: whole-chain checks first, then every node
// instance. Any failure destroys what was built and throws AppError('invalid') naming chain and node.
import { AppError, errorMessage } from '../core/errors.ts';
import { substituteVariables } from './chain-variables.ts';
import { describeZodError, parseWeakly } from './dsl.ts';
import { globalsOf } from './expr-env.ts';
import { referencedNodeIds } from './node-references.ts';
import { outputsOfRun } from './run-outputs.ts';
import type { RuleChainDefinition, RuleNodeDefinition } from './dsl.ts';
import type { NodeRegistry } from './registry.ts';
import type { NodeDefinition, NodeInstance, NodeServices } from './types.ts';

export interface ChainNode {
  readonly id: string;
  readonly type: string;
  readonly role: NodeDefinition['role'];
  readonly instance: NodeInstance;
  /** Target nodes by relation type, in connection order. */
  readonly next: Map<string, ChainNode[]>;
  /** `debugMode` of the node or of its chain: its runs are logged (run-log.ts). */
  readonly debug: boolean;
}

export interface CompiledChain {
  readonly id: string;
  readonly definition: RuleChainDefinition;
  readonly nodes: ReadonlyMap<string, ChainNode>;
  /** Undefined for an empty chain, which loads (as in RuleGo) and fails every run. */
  readonly first: ChainNode | undefined;
  /** True when any node is logged. */
  readonly debug: boolean;
  /** Nodes whose outputs another node's configuration refers to: a run keeps their last output. */
  readonly referenced: ReadonlySet<string>;
}

interface PlannedNode {
  node: RuleNodeDefinition;
  definition: NodeDefinition;
  config: unknown;
}

/**
 * Checks the chain as a whole and each node's configuration; creates nothing. `${vars.x}`,
 * `${global.x}` and `${ruleChain.x}` in configurations are replaced first, as RuleGo does at load.
 */
export function planChain(
  chain: RuleChainDefinition,
  registry: NodeRegistry,
  global: Record<string, unknown> = {},
): PlannedNode[] {
  const fail = (text: string): AppError =>
    new AppError('invalid', `rule chain "${chain.ruleChain.id}": ${text}`);
  const { nodes } = chain.metadata;

  const variables = {
    vars: chain.ruleChain.configuration?.vars ?? {},
    global,
    ruleChain: chain.ruleChain as Record<string, unknown>,
  };
  const planned: PlannedNode[] = [];
  const ids = new Set<string>();
  for (const node of nodes) {
    if (ids.has(node.id)) throw fail(`duplicate node id "${node.id}"`);
    ids.add(node.id);
    const definition = registry.get(node.type);
    if (!definition) throw fail(`node "${node.id}": unknown node type "${node.type}"`);
    const configuration = substituteVariables(node.configuration ?? {}, variables);
    const parsed = parseWeakly(definition.configSchema, configuration);
    if (!parsed.success) throw fail(`node "${node.id}": ${describeZodError(parsed.error, 'configuration')}`);
    planned.push({ node, definition, config: parsed.data });
  }

  const edges = new Map<string, string[]>([...ids].map((id) => [id, []]));
  for (const connection of chain.metadata.connections ?? []) {
    const route = `connection "${connection.fromId}" -> "${connection.toId}"`;
    for (const end of [connection.fromId, connection.toId]) {
      if (!ids.has(end)) throw fail(`${route}: unknown node "${end}"`);
    }
    edges.get(connection.fromId)?.push(connection.toId);
  }

  for (const connection of chain.metadata.ruleChainConnections ?? []) {
    if (!ids.has(connection.fromId)) {
      throw fail(
        `rule chain connection "${connection.fromId}" -> chain "${connection.toId}": unknown node "${connection.fromId}"`,
      );
    }
  }

  const firstIndex = chain.metadata.firstNodeIndex ?? 0;
  if (nodes.length > 0 && firstIndex >= nodes.length) {
    throw fail(`firstNodeIndex ${firstIndex} is out of range (the chain has ${nodes.length} nodes)`);
  }

  for (const { node, definition, config } of planned) {
    for (const target of definition.nodeRefs?.(config) ?? []) {
      if (!ids.has(target)) throw fail(`node "${node.id}": refers to unknown node "${target}"`);
      // A body node run by this one counts as an edge: reaching back to it would never end.
      edges.get(node.id)?.push(target);
    }
  }

  const cycle = findCycle(edges);
  if (cycle) throw fail(`cycle ${cycle.map((id) => `"${id}"`).join(' -> ')}`);
  return planned;
}

/** Plans, then creates every node instance, then links the connections. */
export async function buildChain(
  chain: RuleChainDefinition,
  registry: NodeRegistry,
  services: NodeServices,
): Promise<CompiledChain> {
  const planned = planChain(chain, registry, globalsOf(services)());
  const chainId = chain.ruleChain.id;
  const vars = chain.ruleChain.configuration?.vars ?? {};
  const nodes = new Map<string, ChainNode>();
  const ids = new Set(planned.map(({ node }) => node.id));
  const referenced = new Set<string>();
  try {
    for (const { node, definition, config } of planned) {
      // Read from the configuration as written, as RuleGo does, so every field counts.
      const references = referencedNodeIds(node.configuration, ids);
      for (const id of references) referenced.add(id);
      for (const id of definition.outputRefs?.(config) ?? []) referenced.add(id);
      let instance: NodeInstance;
      try {
        instance = await definition.create(config, { chainId, nodeId: node.id, vars, services, references });
      } catch (error) {
        throw new AppError('invalid', `rule chain "${chainId}": node "${node.id}": ${errorMessage(error)}`, {
          cause: error,
        });
      }
      nodes.set(node.id, {
        id: node.id,
        type: node.type,
        role: definition.role,
        instance,
        next: new Map(),
        debug: chain.ruleChain.debugMode === true || node.debugMode === true,
      });
    }
  } catch (error) {
    await destroyNodes(nodes.values());
    throw error;
  }

  for (const connection of chain.metadata.connections ?? []) {
    const from = nodes.get(connection.fromId);
    const to = nodes.get(connection.toId);
    if (!from || !to) continue;
    const targets = from.next.get(connection.type);
    if (targets) targets.push(to);
    else from.next.set(connection.type, [to]);
  }

  linkChainConnections(chain, nodes);
  const first = nodes.get(planned[chain.metadata.firstNodeIndex ?? 0]?.node.id ?? '');
  const debug = [...nodes.values()].some((node) => node.debug);
  return { id: chainId, definition: chain, nodes, first, debug, referenced };
}

/**
 * RuleGo's `ruleChainConnections`: a node's relation leads into another chain (looked up when a
 * message takes it). The sub-chain's ends are this branch's ends, with their relations.
 */
function linkChainConnections(chain: RuleChainDefinition, nodes: Map<string, ChainNode>): void {
  const targets = new Map<string, ChainNode>();
  for (const connection of chain.metadata.ruleChainConnections ?? []) {
    const from = nodes.get(connection.fromId);
    if (!from) continue;
    const toId = connection.toId;
    let target = targets.get(toId);
    if (!target) {
      target = {
        id: `chain:${toId}`,
        type: 'ruleChain',
        role: undefined,
        instance: {
          process: async (message, context) => outputsOfRun(await context.runChain(toId, message)),
        },
        next: new Map(),
        debug: false,
      };
      targets.set(toId, target);
    }
    const list = from.next.get(connection.type);
    if (list) list.push(target);
    else from.next.set(connection.type, [target]);
  }
}

export async function destroyChain(chain: CompiledChain): Promise<void> {
  await destroyNodes(chain.nodes.values());
}

/** Destroys every instance; one failing destroy must not keep the others alive. */
async function destroyNodes(nodes: Iterable<ChainNode>): Promise<void> {
  await Promise.allSettled([...nodes].map(async (node) => node.instance.destroy?.()));
}

/** A cycle as a path of node ids that starts and ends with the same id, or undefined. */
function findCycle(edges: Map<string, string[]>): string[] | undefined {
  const done = new Set<string>();
  const onPath = new Set<string>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (onPath.has(id)) return [...path.slice(path.indexOf(id)), id];
    if (done.has(id)) return undefined;
    onPath.add(id);
    path.push(id);
    for (const target of edges.get(id) ?? []) {
      const cycle = visit(target);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(id);
    done.add(id);
    return undefined;
  };
  for (const id of edges.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}
