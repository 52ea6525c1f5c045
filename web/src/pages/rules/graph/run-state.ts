// A run of the chain as the graph colours it: each node's relations, time and error. It comes live
// from the chain's event stream (GET /event/ws/{clientId}?chainId=..., each node's start and end) or
// from a stored run log (debug mode), whichever is newer.
import { useEffect, useRef, useState } from 'preact/hooks';
import { currentToken } from '../../../api.ts';
import type { LiveEvent as ServerLiveEvent } from '@server/observability/live-event.ts';
import type { RunLog } from '../rule-types.ts';

export interface NodeRun {
  relations: string[];
  /** Total time of the node's runs in this run, in ms. */
  durationMs: number;
  /** How many times the node ran (loops run a node more than once). */
  count: number;
  error?: string;
  running: boolean;
}

export interface RunView {
  runId: string;
  status: 'running' | 'success' | 'failure';
  nodes: Record<string, NodeRun>;
  durationMs?: number;
}

type LiveEvent = Pick<ServerLiveEvent, 'type' | 'taskId' | 'payload'>;

function merge(
  previous: NodeRun | undefined,
  relations: string[],
  durationMs: number,
  error?: string,
): NodeRun {
  const all = [...(previous?.relations ?? [])];
  for (const relation of relations) if (!all.includes(relation)) all.push(relation);
  return {
    relations: all,
    durationMs: (previous?.durationMs ?? 0) + durationMs,
    count: (previous?.count ?? 0) + 1,
    running: false,
    ...(error !== undefined ? { error } : previous?.error !== undefined ? { error: previous.error } : {}),
  };
}

export function runViewOfLog(log: RunLog): RunView {
  const nodes: Record<string, NodeRun> = {};
  for (const entry of log.logs) {
    const relations = entry.relationTypes.length > 0 ? entry.relationTypes : entry.err ? ['Failure'] : [];
    nodes[entry.nodeId] = merge(
      nodes[entry.nodeId],
      relations,
      Math.max(0, entry.endTs - entry.startTs),
      entry.err,
    );
  }
  return { runId: log.id, status: log.outcome, nodes, durationMs: log.endTs - log.startTs };
}

/** The next view after a live event; events of another run than the shown one start a new view. */
export function applyLiveEvent(view: RunView | null, event: LiveEvent): RunView | null {
  const { payload } = event;
  const current: RunView =
    view && view.runId === event.taskId ? view : { runId: event.taskId, status: 'running', nodes: {} };
  if (event.type === 'status') return current;
  if (event.type === 'progress' && typeof payload['nodeId'] === 'string') {
    const nodeId = payload['nodeId'];
    const previous = current.nodes[nodeId];
    if (payload['phase'] === 'start') {
      const node: NodeRun = previous
        ? { ...previous, running: true }
        : { relations: [], durationMs: 0, count: 0, running: true };
      return { ...current, nodes: { ...current.nodes, [nodeId]: node } };
    }
    const relations = Array.isArray(payload['relations'])
      ? payload['relations'].filter((item): item is string => typeof item === 'string')
      : [];
    const error = typeof payload['error'] === 'string' ? payload['error'] : undefined;
    const durationMs = typeof payload['durationMs'] === 'number' ? payload['durationMs'] : 0;
    const ended = merge(
      previous,
      relations.length > 0 ? relations : error ? ['Failure'] : [],
      durationMs,
      error,
    );
    return { ...current, nodes: { ...current.nodes, [nodeId]: ended } };
  }
  if (event.type === 'done' || event.type === 'error') {
    const durationMs = typeof payload['durationMs'] === 'number' ? payload['durationMs'] : undefined;
    return {
      ...current,
      status: event.type === 'done' ? 'success' : 'failure',
      ...(durationMs !== undefined ? { durationMs } : {}),
    };
  }
  return view;
}

/**
 * Watches the chain's runs over its event stream; `live` says whether the stream is open. A dropped
 * stream is opened again after two seconds.
 */
export function useChainEvents(chainId: string | null, onEvent: (event: LiveEvent) => void): boolean {
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (chainId === null) return;
    let socket: WebSocket | undefined;
    let retry: number | undefined;
    let stopped = false;
    const clientId = `ui-${Math.random().toString(36).slice(2, 10)}`;
    const open = () => {
      const token = currentToken();
      const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
      socket = new WebSocket(
        `${scheme}://${window.location.host}/api/v1/event/ws/${clientId}?chainId=${encodeURIComponent(chainId)}`,
        token ? ['agent-service', `bearer.${token}`] : [],
      );
      socket.onopen = () => setLive(true);
      socket.onmessage = (message) => {
        try {
          const event = JSON.parse(String(message.data)) as LiveEvent;
          if (typeof event.taskId === 'string' && event.payload) handler.current(event);
        } catch {
          // not an event (a pong)
        }
      };
      socket.onclose = () => {
        setLive(false);
        if (!stopped) retry = window.setTimeout(open, 2000);
      };
    };
    open();
    return () => {
      stopped = true;
      window.clearTimeout(retry);
      socket?.close();
    };
  }, [chainId]);
  return live;
}
