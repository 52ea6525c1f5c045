// One run of a chain: messages hop from node to node, branches run concurrently as promises, and
// the run settles when nothing is processing and no join is waiting.
//
// Branch accounting for `join`: a node whose outputs match more than one connection is a split and
// opens a frame counting its live branches. A branch forking again adds to every enclosing frame;
// a branch that ends takes one from every enclosing frame; a branch reaching a join takes one from
// the nearest frame only and waits there. When a frame has no live branch left, its join fires with
// the arrived messages, which continue as one branch. Joins pair with splits like parentheses.
//
// Result rule: messages that reached an `end` node are the results and the outcome is success, even
// if another branch failed. Without any, every message at a branch end (no matching connection) is
// a result, and if one of them ended on Failure the outcome is failure with its errorMsg.
import { AppError, errorMessage } from '../core/errors.ts';
import type { ChainNode, CompiledChain } from './chain.ts';
import { copyMessage, withErrorMessage } from './message.ts';
import { outputsOfRun } from './run-outputs.ts';
import { arrivalOf, targetsOf } from './run-targets.ts';
import type { Cancellable } from './run-budget.ts';
import { RunNodeContext } from './run-context.ts';
import type { RunScope } from './run-context.ts';
import type { RunHost } from './run-host.ts';
import { logMessage, RunLogBuilder } from './run-log.ts';
import type { LoggedMessage } from './run-log.ts';

export type { RunHost } from './run-host.ts';
import type {
  JoinArrival,
  NodeOutput,
  RuleMessage,
  RunEnd,
  RunEvent,
  TurnContext,
  RunResult,
} from './types.ts';

interface Frame {
  parent: Frame | undefined;
  live: number;
  arrivals: JoinArrival[];
  join: ChainNode | undefined;
  timer: NodeJS.Timeout | undefined;
  closed: boolean;
}

export class ChainRun implements Cancellable {
  private outstanding = 0;
  private settled = false;
  private idled = false;
  private readonly replies: RunEnd[] = [];
  private readonly ends: RunEnd[] = [];
  private readonly waiting = new Set<Frame>();
  /** The last output of each node that another node refers to (`${node1.msg.x}`), shared with body runs. */
  readonly nodeOutputs: Map<string, RuleMessage>;
  private resolve: (result: RunResult) => void = () => undefined;
  private reject: (error: unknown) => void = () => undefined;
  /** Its own log (a chain with logged nodes), or the log of the run it is a body of. */
  private readonly log: RunLogBuilder | undefined;
  private readonly ownsLog: boolean;

  constructor(
    readonly chain: CompiledChain,
    private readonly host: RunHost,
    readonly scope: RunScope,
    private readonly onIdle: () => void,
  ) {
    this.ownsLog = scope.runLog === undefined && chain.debug;
    this.nodeOutputs = scope.nodeOutputs ?? new Map();
    this.log = scope.runLog ?? (chain.debug ? new RunLogBuilder(chain.id) : undefined);
  }

  start(node: ChainNode, message: RuleMessage): Promise<RunResult> {
    const promise = new Promise<RunResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.scope.budget.watch(this);
    // The caller keeps its message: nodes may change the one they are given in place.
    void this.visit(node, copyMessage(message), undefined);
    return promise;
  }

  emit(event: RunEvent): void {
    if (this.settled) return;
    this.scope.watch?.event(event);
    const listener = this.scope.onEvent;
    if (!listener) return;
    try {
      listener(event);
    } catch {
      // A failing listener is the caller's bug; it must not break the run that reports to it.
    }
  }

  runChain(
    chainId: string,
    message: RuleMessage,
    turn: TurnContext | undefined,
    isolated = false,
  ): Promise<RunResult> {
    const scope = this.nestedScope(turn);
    return this.host.runChain(
      chainId,
      message,
      isolated ? { ...scope, onEvent: undefined, isolated: true } : scope,
    );
  }

  runNode(nodeId: string, message: RuleMessage): Promise<RunResult> {
    const node = this.chain.nodes.get(nodeId);
    if (!node) throw new AppError('not-found', `rule chain "${this.chain.id}": no node "${nodeId}"`);
    const scope = { ...this.nestedScope(undefined), runLog: this.log, nodeOutputs: this.nodeOutputs };
    return this.host.runFrom(this.chain, node, message, scope);
  }

  /** Calls one node of this chain, not what follows it (groupAction); its events and log as usual. */
  callNode(nodeId: string, message: RuleMessage): Promise<NodeOutput[]> {
    const node = this.chain.nodes.get(nodeId);
    if (!node) throw new AppError('not-found', `rule chain "${this.chain.id}": no node "${nodeId}"`);
    return this.process(node, copyMessage(message));
  }

  /** RuleGo's TellChainNode: a node of this chain or of another one, alone or with what follows it. */
  async refNode(chainId: string | undefined, nodeId: string, message: RuleMessage, all: boolean) {
    if (chainId !== undefined && chainId !== this.chain.id) {
      return this.host.runChainNode(chainId, nodeId, message, this.nestedScope(undefined), all);
    }
    if (!all) return this.callNode(nodeId, message);
    return outputsOfRun(await this.runNode(nodeId, message));
  }

  private nestedScope(turn: TurnContext | undefined): RunScope {
    return {
      ...this.scope,
      turn: turn ?? this.scope.turn,
      depth: this.scope.depth + 1,
      isolated: undefined,
      runLog: undefined,
      nodeOutputs: undefined,
    };
  }

  private async visit(
    node: ChainNode,
    message: RuleMessage,
    frame: Frame | undefined,
    from: Omit<JoinArrival, 'message'> = { nodeId: '' },
  ): Promise<void> {
    this.outstanding += 1;
    try {
      if (this.settled) return;
      const turn = this.scope.budget.spend();
      if (turn) await turn;
      if (this.settled) return;
      if (this.scope.budget.aborted) {
        this.cancel();
        return;
      }
      if (node.role === 'join' && node.instance.join) {
        this.arrive(node, { ...from, message }, frame);
        return;
      }
      const outputs = await this.process(node, message);
      if (this.settled) return;
      if (node.role === 'end') {
        for (const output of outputs) {
          this.replies.push({ nodeId: node.id, relation: output.relation, message: output.message });
        }
        this.branchEnded(frame);
        return;
      }
      this.route(node, outputs, frame);
    } catch (error) {
      this.settle(undefined, error);
    } finally {
      this.outstanding -= 1;
      if (this.outstanding === 0) this.idle();
    }
  }

  /** Calls the node; a throw becomes the Failure relation with `metadata.errorMsg`. */
  private async process(node: ChainNode, message: RuleMessage): Promise<NodeOutput[]> {
    const { chain } = this;
    const watched = this.scope.watch?.node(node.id, node.type);
    if (this.scope.onEvent)
      this.emit({ type: 'node-start', chainId: chain.id, nodeId: node.id, nodeType: node.type });
    // Logged before the call: a node may change the message it is given.
    let logged: { inMsg: LoggedMessage; startTs: number } | undefined;
    if (this.log && node.debug) {
      if (this.log.accepting) logged = { inMsg: logMessage(message), startTs: Date.now() };
      else this.log.skip();
    }
    let outputs: NodeOutput[];
    let failure: string | undefined;
    try {
      outputs = await node.instance.process(message, new RunNodeContext(this, node.id));
      const [first] = outputs;
      // RuleGo keeps the output of a referenced node in the run for later `${nodeId.msg.x}` templates.
      if (first && this.chain.referenced.has(node.id)) this.nodeOutputs.set(node.id, first.message);
      failure = outputs.find((output) => output.error !== undefined)?.error;
      if (this.scope.onEvent || watched) {
        const relations = outputs.map((output) => output.relation);
        watched?.(relations, failure);
        this.emit({ type: 'node-end', chainId: chain.id, nodeId: node.id, relations });
      }
    } catch (error) {
      failure = errorMessage(error);
      watched?.(['Failure'], failure);
      this.emit({
        type: 'node-end',
        chainId: chain.id,
        nodeId: node.id,
        relations: ['Failure'],
        error: failure,
      });
      outputs = [{ relation: 'Failure', message: withErrorMessage(message, failure), cause: error }];
    }
    if (logged) this.logNode(node, logged, outputs, failure);
    return outputs;
  }

  private logNode(
    node: ChainNode,
    logged: { inMsg: LoggedMessage; startTs: number },
    outputs: NodeOutput[],
    failure: string | undefined,
  ): void {
    this.log?.add({
      nodeId: node.id,
      nodeType: node.type,
      ...logged,
      outMsgs: outputs.map((output) => ({ relationType: output.relation, msg: logMessage(output.message) })),
      relationTypes: outputs.map((output) => output.relation),
      ...(failure === undefined ? {} : { err: failure }),
      endTs: Date.now(),
    });
  }

  /** Sends each output down every matching connection, each with its own copy of the message. */
  private route(node: ChainNode, outputs: NodeOutput[], frame: Frame | undefined): void {
    let count = 0;
    for (const output of outputs) {
      const targets = targetsOf(node, output);
      if (targets) count += targets.length;
      else
        this.ends.push({
          nodeId: node.id,
          relation: output.relation,
          message: output.message,
          ...(output.cause !== undefined ? { cause: output.cause } : {}),
        });
    }
    if (count === 0) {
      this.branchEnded(frame);
      return;
    }
    const { maxFanOut } = this.scope.budget.limits;
    if (count > maxFanOut) {
      const fanOut = `node "${node.id}" of rule chain "${this.chain.id}" started ${count} branches`;
      this.scope.budget.fail(new AppError('too-large', `${fanOut}; the limit is ${maxFanOut}`));
      return;
    }
    let branchFrame = frame;
    if (count > 1) {
      for (let outer = frame; outer; outer = outer.parent) outer.live += count - 1;
      branchFrame = {
        parent: frame,
        live: count,
        arrivals: [],
        join: undefined,
        timer: undefined,
        closed: false,
      };
    }
    for (const output of outputs) {
      for (const target of targetsOf(node, output) ?? []) {
        void this.visit(target, copyMessage(output.message), branchFrame, arrivalOf(node.id, output));
      }
    }
  }

  private branchEnded(frame: Frame | undefined): void {
    for (let current = frame; current; current = current.parent) {
      current.live -= 1;
      if (!current.closed && current.live === 0 && current.arrivals.length > 0) this.fire(current, false);
    }
  }

  private arrive(node: ChainNode, arrival: JoinArrival, frame: Frame | undefined): void {
    if (!frame) {
      // No split above: the join passes a lone message on.
      const lone: Frame = {
        parent: undefined,
        live: 0,
        arrivals: [arrival],
        join: node,
        timer: undefined,
        closed: false,
      };
      this.fire(lone, false);
      return;
    }
    if (frame.closed) {
      // The join already fired on timeout: a late branch is dropped, not a result.
      this.branchEnded(frame);
      return;
    }
    frame.arrivals.push(arrival);
    frame.join ??= node;
    frame.live -= 1;
    if (frame.live === 0) {
      this.fire(frame, false);
      return;
    }
    if (this.waiting.has(frame)) return;
    this.waiting.add(frame);
    this.outstanding += 1;
    const timeoutMs = node.instance.join?.timeoutMs ?? this.host.joinTimeoutMs;
    if (timeoutMs > 0) frame.timer = setTimeout(() => this.fireGuarded(frame, timeoutMs), timeoutMs);
  }

  private fireGuarded(frame: Frame, timeoutMs: number): void {
    try {
      this.fire(frame, true, timeoutMs);
    } catch (error) {
      this.settle(undefined, error);
    }
  }

  private fire(frame: Frame, timedOut: boolean, timeoutMs = 0): void {
    const join = frame.join;
    const behaviour = join?.instance.join;
    if (frame.closed || !join || !behaviour || this.settled) return;
    frame.closed = true;
    clearTimeout(frame.timer);
    const wasWaiting = this.waiting.delete(frame);
    // The arrived branches become one; enclosing frames counted each of them.
    for (let outer = frame.parent; outer; outer = outer.parent) outer.live -= frame.arrivals.length - 1;
    const chainId = this.chain.id;
    this.emit({ type: 'node-start', chainId, nodeId: join.id, nodeType: join.type });
    const watched = this.scope.watch?.node(join.id, join.type);
    let output: NodeOutput;
    try {
      const merged = behaviour.merge(frame.arrivals);
      const failure = timedOut
        ? `join timed out after ${timeoutMs} ms waiting for ${frame.live} branches`
        : merged.error;
      output =
        failure === undefined
          ? { relation: 'Success', message: merged.message }
          : { relation: 'Failure', message: withErrorMessage(merged.message, failure) };
    } catch (error) {
      output = {
        relation: 'Failure',
        message: withErrorMessage((frame.arrivals[0] as JoinArrival).message, errorMessage(error)),
      };
    }
    const error = output.relation === 'Failure' ? output.message.metadata['errorMsg'] : undefined;
    watched?.([output.relation], error);
    this.emit({
      type: 'node-end',
      chainId,
      nodeId: join.id,
      relations: [output.relation],
      ...(error === undefined ? {} : { error }),
    });
    if (this.log && join.debug) {
      if (this.log.accepting) {
        // A join's input is every arrived branch: logged as one message whose data lists theirs.
        const first = (frame.arrivals[0] as JoinArrival).message;
        const data = JSON.stringify(frame.arrivals.map((arrival) => arrival.message.data));
        const arrived = { ...first, data };
        this.logNode(join, { inMsg: logMessage(arrived), startTs: Date.now() }, [output], error);
      } else this.log.skip();
    }
    this.route(join, [output], frame.parent);
    if (wasWaiting) {
      this.outstanding -= 1;
      if (this.outstanding === 0) this.idle();
    }
  }

  /** Ends the run with the reason of its aborted signal; the budget calls it for the whole tree. */
  cancel(): void {
    if (this.settled) return;
    const reason = this.scope.budget.reason;
    this.settle(
      undefined,
      reason instanceof AppError ? reason : new AppError('unavailable', 'run cancelled'),
    );
    for (const frame of this.waiting) {
      clearTimeout(frame.timer);
      frame.closed = true;
    }
    this.outstanding -= this.waiting.size;
    this.waiting.clear();
    if (this.outstanding === 0) this.idle();
  }

  private idle(): void {
    if (this.idled) return;
    this.idled = true;
    this.settle(this.result(), undefined);
    this.onIdle();
  }

  private result(): RunResult {
    const ends = this.replies.length > 0 ? this.replies : this.ends;
    const results = ends.map((end) => end.message);
    if (this.replies.length > 0) return { outcome: 'success', results, ends };
    const failed = this.ends.find((end) => end.relation === 'Failure');
    if (!failed) return { outcome: 'success', results, ends };
    const error = failed.message.metadata['errorMsg'] ?? 'a branch ended in Failure';
    const failure = {
      nodeId: failed.nodeId,
      message: error,
      ...(failed.cause !== undefined ? { cause: failed.cause } : {}),
    };
    return { outcome: 'failure', results, ends, error, failure };
  }

  private settle(result: RunResult | undefined, error: unknown): void {
    if (this.settled) return;
    this.scope.budget.unwatch(this);
    if (this.scope.depth === 0) {
      const reported = result ?? { outcome: 'failure', results: [], error: errorMessage(error) };
      this.emit({ type: 'run-end', chainId: this.chain.id, result: reported });
    }
    this.settled = true;
    if (this.scope.depth === 0) this.scope.budget.finish(result ? undefined : error);
    if (this.log && this.ownsLog) {
      const failed = result === undefined || result.outcome === 'failure';
      this.host.recordRun(
        this.log.finish(failed ? 'failure' : 'success', result ? result.error : errorMessage(error)),
      );
    }
    if (result) this.resolve(result);
    else this.reject(error);
  }
}
