// Public contract of the rule-chain engine. Everything outside src/engine uses only these types and
// the RuleEngine class; node implementations register through a NodeRegistry.
import type { Logger } from '../core/logger.ts';
import type { z } from 'zod';
import type { ToolType } from '../tools/types.ts';
import type { ChatMessage, ToolCallRequest, Usage } from '../model-providers/types.ts';
import type { ModelCaller } from '../model-providers/caller.ts';
import type { ScriptPool } from './sandbox/script-pool.ts';
import type { Conversation } from './ai/conversation.ts';
import type { RuleMessage } from './run-log-types.ts';

export type { DataType, RuleMessage } from './run-log-types.ts';

/** Events of one run, in order. Drivers (chat, REST, scheduler) turn them into bytes. */
export type RunEvent =
  | { type: 'node-start'; chainId: string; nodeId: string; nodeType: string }
  /** `error` is the Failure's errorMsg (what the node threw is in the run's result, RunResult.failure). */
  | { type: 'node-end'; chainId: string; nodeId: string; relations: string[]; error?: string }
  | { type: 'text-delta'; text: string }
  | {
      type: 'tool-call-start';
      toolCallId: string;
      toolCallName: string;
      arguments: string;
      toolType: ToolType;
    }
  | {
      type: 'tool-call-result';
      toolCallId: string;
      toolCallName: string;
      content: string;
      toolType: ToolType;
    }
  | { type: 'usage'; usage: Usage }
  /**
   * A model node's messages of this turn (its inputs, then what it added), for the turn to keep in
   * the session; emitted only when the run is a turn (TurnContext.conversation).
   */
  | { type: 'conversation'; messages: ChatMessage[] }
  /** The model called tools the client runs (Conversation.clientTools): the turn ends on these calls. */
  | { type: 'client-tool-calls'; calls: ToolCallRequest[] }
  | { type: 'run-end'; chainId: string; result: RunResult };

export interface RunResult {
  outcome: 'success' | 'failure';
  /** Messages that reached an `end` node; without one, the messages at the end of each branch. */
  results: RuleMessage[];
  /** Set when outcome is failure: the errorMsg of the failing branch. */
  error?: string;
  /** Set when outcome is failure: the node the failing branch ended at, its errorMsg and what it threw. */
  failure?: RunFailure;
  /** Each end of the run, with the node it ended at and its relation (the flow node's records). */
  ends?: RunEnd[];
}

export interface RunEnd {
  nodeId: string;
  relation: string;
  message: RuleMessage;
  /** A Failure end: what the node threw (an AppError keeps its kind, the answer's status). */
  cause?: unknown;
}

/** Why a run failed, as a typed field of its result (no matching of error texts). */
export interface RunFailure {
  nodeId: string;
  message: string;
  /** What the node threw; absent when it returned a Failure without throwing. */
  cause?: unknown;
}

/** What an agent turn hands its run: whose workspace the nodes work in, and the conversation. */
export interface TurnContext {
  /** The agent of the turn (a sub-agent's run names its own); absent: the chain itself. */
  agentId?: string;
  /** History in, this turn's messages out; absent for runs that are not agent turns. */
  conversation?: Conversation;
  /** Who the run's model calls are for (metering, traces); given by whoever starts the run. */
  caller?: ModelCaller | undefined;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Called synchronously for every event of the run, including nested flow runs. */
  onEvent?: (event: RunEvent) => void;
  turn?: TurnContext;
}

/** What a node sees while processing one message. */
export interface NodeContext {
  readonly chainId: string;
  readonly nodeId: string;
  readonly signal: AbortSignal;
  readonly turn: TurnContext;
  /** Nesting depth of flow/tool chain calls, to stop runaway recursion. */
  readonly depth: number;
  emit(event: RunEvent): void;
  /**
   * Runs another loaded chain by id (looked up at call time), sharing signal, events and turn.
   * `isolated` keeps the nested run's events to itself (a sub-agent's text is not the caller's).
   */
  runChain(
    chainId: string,
    message: RuleMessage,
    options?: { turn?: TurnContext; isolated?: boolean },
  ): Promise<RunResult>;
  /**
   * Runs the nodes reachable from `nodeId` in this same chain as a sub-run (the `for` node's body).
   * Optional so that hand-made contexts in tests need not provide it.
   */
  runNode?(nodeId: string, message: RuleMessage): Promise<RunResult>;
  /**
   * Counts one step of a node's own loop (a `for` iteration) against the run's budget, waits now and
   * then for the event loop to turn, and throws when the run is aborted or over its budget.
   */
  checkpoint(): Promise<void>;
  /** Calls one node of this chain without what follows it (groupAction); optional for test contexts. */
  callNode?(nodeId: string, message: RuleMessage): Promise<NodeOutput[]>;
  /** The last output of a node of this run, for `${nodeId.msg.x}` references; optional for test contexts. */
  nodeOutput?(nodeId: string): RuleMessage | undefined;
  /**
   * RuleGo's TellChainNode (the `ref` node): a node of this chain (no chainId) or of another loaded
   * chain, alone (its outputs) or with what follows it (`tellChain`: the ends of that sub-run).
   */
  refNode?(
    chainId: string | undefined,
    nodeId: string,
    message: RuleMessage,
    tellChain: boolean,
  ): Promise<NodeOutput[]>;
}

/** One output of a node: the relation type it ends with and the message to pass on. */
export interface NodeOutput {
  relation: string;
  message: RuleMessage;
  /** The relation to take instead when no connection leaves the node with `relation` (msgTypeSwitch). */
  otherwise?: string;
  /**
   * The error of a Failure the node returns instead of throwing (RuleGo's `TellFailure(msg, err)`, as
   * opposed to `TellNext(msg, Failure)`): logged as the node's `err`, like a thrown error.
   */
  error?: string;
  /** What a Failure came from: the error the node (or a sub-run it passes on) threw. */
  cause?: unknown;
}

export interface NodeInstance {
  process(message: RuleMessage, context: NodeContext): Promise<NodeOutput[]>;
  /** Frees what the node holds (sandboxes, connections) when its chain is unloaded or replaced. */
  destroy?(): void | Promise<void>;
  /**
   * Called once the node's chain is in service (never for a definition that is only validated): starts
   * background work such as connecting to the node's MCP servers.
   */
  start?(): void;
  /** What is wrong with the node now, in words (an MCP server that could not start); empty when nothing. */
  problems?(): string[];
  /** Join nodes only: how long to wait for the branches and how the arrived messages become one. */
  join?: JoinBehaviour;
}

export interface JoinBehaviour {
  /** Wait limit in ms; undefined uses the engine default, 0 waits without limit. */
  timeoutMs: number | undefined;
  /** The merged message, and an error when a branch arrived on Failure (RuleGo then fails the join). */
  merge(arrivals: JoinArrival[]): { message: RuleMessage; error?: string };
}

/** One branch that reached a join: its message, the node that sent it and its error if on Failure. */
export interface JoinArrival {
  message: RuleMessage;
  nodeId: string;
  error?: string;
}

/** Where nodes that call out (restApiCall) may connect. */
export interface NetworkPolicy {
  /** Loopback, private and link-local addresses too; default false: only public addresses. */
  allowPrivateNetwork?: boolean;
  /** Hosts reached whatever they resolve to, as in URLs: `api.internal`, `10.0.0.5:8080`, `[::1]`. */
  allowedHosts?: readonly string[];
}

/** Services available to node factories; later layers add to it (model providers, tools). */
export interface NodeServices {
  /** Time limit for one user-script call, in ms. */
  scriptTimeoutMs: number;
  /** Memory limit of one script sandbox, in bytes. */
  scriptMemoryBytes: number;
  /** Worker threads that run user scripts; default one per core but one, at least 1, at most 2. */
  scriptWorkers?: number;
  /** Where user scripts run; the engine makes one from the settings above (and closes it) if absent. */
  scriptPool?: ScriptPool;
  /** Where restApiCall may connect; default only public addresses. */
  network?: NetworkPolicy;
  /** The service's logger: the `log` node writes here, the agent node its problems. */
  logger?: Logger;
  [service: string]: unknown;
}

export interface NodeFactoryContext {
  chainId: string;
  nodeId: string;
  /** ruleChain.configuration.vars, for ${vars.x} templates. */
  vars: Record<string, string>;
  services: NodeServices;
  /**
   * Ids of the nodes of the chain whose outputs this node's configuration refers to
   * (`${node1.msg.x}`), found when the chain loads; absent when a node is built on its own.
   */
  references?: readonly string[];
}

export interface NodeDefinition<Config = unknown> {
  type: string;
  label: string;
  description: string;
  category: string;
  /** Relation types the node can end with, as shown to editors. */
  relations: string[];
  /** Validates the node's `configuration`; also the source of the component form. */
  configSchema: z.ZodType<Config>;
  create(config: Config, context: NodeFactoryContext): NodeInstance | Promise<NodeInstance>;
  /**
   * How the engine treats the node beyond calling `process`: `end` marks the chain's reply (its
   * outputs are results, connections out of it are not followed); `join` gathers the branches of
   * the nearest split above it and needs `NodeInstance.join`.
   */
  role?: 'end' | 'join';
  /** Ids of other nodes of the same chain that the configuration names; checked and cycle-tested at load. */
  nodeRefs?(config: Config): string[];
  /** Ids of nodes whose last output the node reads (fetchNodeOutput): the run keeps those outputs. */
  outputRefs?(config: Config): string[];
}
