// Who a model call is made for, carried with the request itself. The usage meter reads the
// attribution (whose budget, whose usage row), the observability the turn (whose span, whose trace
// steps). It travels explicitly, through the turn's context and the engine's run scope, rather than
// in an AsyncLocalStorage: on Node 20 an enabled AsyncLocalStorage runs a hook for every promise
// the process makes, which was 5-6 % of a chat turn's CPU (README, Benchmarks).

export interface Attribution {
  agentId: string;
  /** api, cron, rules or a chat platform; empty when unknown. */
  channel: string;
  /** The api account (key) or the platform account; empty when none. */
  accountId: string;
  /** The platform user (sender) or the signed-in user; empty when none. */
  userId: string;
}

export const UNATTRIBUTED: Attribution = Object.freeze({
  agentId: '',
  channel: '',
  accountId: '',
  userId: '',
});

export interface ModelCaller {
  readonly attribution: Attribution;
  /** The turn the call belongs to, as the observability knows it (opaque to everyone else). */
  readonly turn?: object | undefined;
}

/** The caller with some of its attribution replaced (a sub-agent's calls are metered as its own). */
export function reattributed(caller: ModelCaller | undefined, changes: Partial<Attribution>): ModelCaller {
  return { ...caller, attribution: { ...(caller?.attribution ?? UNATTRIBUTED), ...changes } };
}
