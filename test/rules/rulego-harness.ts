// What the RuleGo fidelity tests share: a chain created and run through the REST API with debugMode
// on, and its run log read back node by node, the way the fidelity corpus compares runs.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { NodeLog, RunLog } from '../../src/engine/run-log.ts';
import type { TestApp } from '../fakes/app-harness.ts';
import { chainDefinition, type Link, type NodeSpec } from '../fakes/builders.ts';

export interface LoggedRun {
  response: LightMyRequestResponse;
  /** The run's node entries, in the order they were logged. */
  logs: NodeLog[];
  /** The entry of one node (its first, when it ran more than once). */
  node(id: string): NodeLog;
  /** `[nodeId, relationTypes]` of each entry, in order. */
  relations(): Array<[string, string[]]>;
}

let counter = 0;

/** Creates a debug chain of `nodes` linked by `links`, executes it once and reads its run log. */
export async function runLogged(
  t: TestApp,
  nodes: NodeSpec[],
  links: Link[],
  /** The message data: a JSON value is JSON data, a string is TEXT data. */
  payload: Record<string, unknown> | unknown[] | string,
  /** `json`: the body sent as written, as JSON (`0` is JSON data "0", as RuleGo's tests send it). */
  options: { msgType?: string; query?: Record<string, string>; json?: string } = {},
): Promise<LoggedRun> {
  counter += 1;
  const id = `rulego-${counter}`;
  const definition = chainDefinition(id, nodes, links, { debugMode: true });
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: definition });
  assert.equal(created.statusCode, 201, created.body);
  const path = options.msgType === undefined ? 'execute' : `execute/${options.msgType}`;
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/v1/rules/${id}/${path}`,
    query: options.query ?? {},
    ...(options.json !== undefined
      ? { payload: options.json, headers: { 'content-type': 'application/json' } }
      : typeof payload === 'string'
        ? { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }
        : { payload }),
  });
  const runs = await t.app.inject({ method: 'GET', url: `/api/v1/logs/runs?chainId=${id}` });
  assert.equal(runs.statusCode, 200, runs.body);
  const [run] = (runs.json() as { data: RunLog[] }).data;
  const logs = run?.logs ?? [];
  return {
    response,
    logs,
    node(nodeId) {
      const entry = logs.find((log) => log.nodeId === nodeId);
      assert.ok(entry, `node "${nodeId}" was not logged`);
      return entry;
    },
    relations: () => logs.map((log): [string, string[]] => [log.nodeId, log.relationTypes]),
  };
}

/** The data of a node's first output: parsed when it is JSON that parses (as RuleGo reads it), else the text. */
export function outData(log: NodeLog): unknown {
  const message = log.outMsgs[0]?.msg;
  assert.ok(message, `node "${log.nodeId}" sent nothing on`);
  if (message.dataType !== 'JSON') return message.data;
  try {
    return JSON.parse(message.data) as unknown;
  } catch {
    return message.data;
  }
}

/** Creates (without running) a chain of `nodes`: the answer, 201 or the load error. */
export async function createChain(
  t: TestApp,
  nodes: NodeSpec[],
  links: Link[] = [],
): Promise<LightMyRequestResponse> {
  counter += 1;
  const definition = chainDefinition(`rulego-${counter}`, nodes, links, { debugMode: true });
  return t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: definition });
}
