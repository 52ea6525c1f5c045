// Conversation sessions for the REST API: an agent's sessions, their messages, titles, deletion.
// Callers are users (or anyone while auth is off), who see every session of the agent, or `api`
// channel accounts, who see only their own (scope per_account_channel_peer, keyed by account).
import { requireAgentAccess, sessionOwner } from '../../auth/agent-access.ts';
import type { Principal } from '../../auth/auth-service.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { paginate, type Page, type Pagination } from '../../http/pagination.ts';
import { childrenOf, newestUnder } from '../../storage/session-branches.ts';
import type { SessionStore, SessionSummary } from '../../storage/session-store.ts';
import type { SessionSearch } from '../../storage/session-search.ts';
import type { CompactionResult } from '../../turns/compactor.ts';
import { DEFAULT_SCOPE, sessionKey } from '../../turns/session-key.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type {
  ClearAnswer,
  ClearBody,
  CompactAnswer,
  SessionSearchAnswer,
  SessionSearchQuery,
  SessionListQuery,
  SessionMessageView,
  SessionView,
  UpdateBody,
} from './sessions.schema.ts';
import { exportFile, type ExportFile } from './session-export.ts';
import { branchViews, sessionIdOf, sessionView as view } from './session-views.ts';

const ACCOUNT_SCOPE = 'per_account_channel_peer';

/** The key prefix an api account's sessions of one agent share. */
function accountPrefix(agentId: string, accountId: string): string {
  return `${sessionKey({ agentId, channel: 'api', scope: ACCOUNT_SCOPE, scopeId: accountId })}:`;
}

/** Session search and compaction, from the turns layer, and its per-session lock. */
export interface SessionMemory {
  search: Pick<SessionSearch, 'search'>;
  compact(agentId: string, key: string, signal: AbortSignal): Promise<CompactionResult>;
  /** Runs `work` while no turn of the session runs (a branch switch, a move to another agent). */
  locked<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export class SessionsService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly agents: AgentCheck,
    private readonly memory: SessionMemory,
  ) {}

  /** A session of another agent, or none, is answered with success: false rather than an error. */
  async clear(body: ClearBody): Promise<ClearAnswer> {
    const { agentId, channel, scope } = body;
    const key = body.sessionKey.startsWith('agent:')
      ? body.sessionKey
      : sessionKey({ agentId, channel, scope, scopeId: body.sessionKey });
    if (!key.startsWith(`agent:${agentId}:`)) {
      return { success: false, message: `session "${key}" does not belong to agent "${agentId}"` };
    }
    const cleared = await this.sessions.clear(key);
    return cleared
      ? { success: true, message: `session "${key}" cleared` }
      : { success: false, message: `session "${key}" not found` };
  }

  async list(
    agentId: string,
    query: SessionListQuery,
    caller: Principal | undefined,
  ): Promise<Page<SessionView>> {
    this.agents.requireAgent(agentId);
    const { page, size, channel } = query;
    const owner = sessionOwner(caller);
    const archived = ({ false: 'exclude', true: 'only', all: 'include' } as const)[query.archived];
    const { sessions, total } = await this.sessions.list({
      agentId,
      ...(owner !== undefined ? { keyPrefix: accountPrefix(agentId, owner) } : {}),
      ...(channel !== undefined ? { channel } : {}),
      archived,
      offset: (page - 1) * size,
      limit: size,
    });
    return { data: sessions.map(view), total, page, size };
  }

  async get(agentId: string, key: string, caller: Principal | undefined): Promise<SessionView> {
    return view(await this.summary(agentId, key, caller));
  }

  /** The messages of a session's active branch, oldest first. */
  async messages(
    agentId: string,
    key: string,
    pagination: Pagination,
    caller: Principal | undefined,
  ): Promise<Page<SessionMessageView>> {
    const summary = await this.summary(agentId, key, caller);
    return paginate(await this.branch(summary.key), pagination);
  }

  private async branch(key: string): Promise<SessionMessageView[]> {
    const tree = await this.sessions.tree(key);
    const entries = await this.sessions.entries(key, 0, tree);
    const summaries = await this.sessions.summaries(key, tree);
    return branchViews(entries, summaries, tree);
  }

  /** The conversation's active branch as a Markdown or JSON file. */
  async export(
    agentId: string,
    key: string,
    format: 'md' | 'json',
    caller: Principal | undefined,
  ): Promise<ExportFile> {
    const summary = await this.summary(agentId, key, caller);
    return exportFile(view(summary), await this.branch(summary.key), format);
  }

  /**
   * Shows another version: the branch through `messageId` becomes the active one, up to the newest
   * message under it (where that branch was left).
   */
  async switchBranch(
    agentId: string,
    key: string,
    messageId: number,
    caller: Principal | undefined,
  ): Promise<{ leafId: number }> {
    const summary = await this.summary(agentId, key, caller);
    return this.memory.locked(summary.key, async () => {
      if (!(await this.sessions.message(summary.key, messageId)))
        throw notFound(`message ${messageId} is not in this conversation`);
      const tree = await this.sessions.tree(summary.key);
      // A session that never branched has one branch: every message is on it already.
      if (!tree) return { leafId: (await this.sessions.entries(summary.key)).at(-1)?.id ?? messageId };
      const leafId = newestUnder(messageId, childrenOf(tree.nodes));
      await this.sessions.checkout(summary.key, leafId);
      return { leafId };
    });
  }

  /**
   * Keyword search over the agent's transcripts the caller may see (as the session list), and the
   * conversations whose title holds the query.
   */
  async search(
    agentId: string,
    query: SessionSearchQuery,
    caller: Principal | undefined,
  ): Promise<SessionSearchAnswer> {
    this.agents.requireAgent(agentId);
    const owner = sessionOwner(caller);
    const prefix = owner !== undefined ? accountPrefix(agentId, owner) : undefined;
    const scope = prefix !== undefined ? { prefixes: [prefix] } : {};
    const hits = await this.memory.search.search(agentId, scope, query.q, query.limit);
    const titled = await this.sessions.findByTitle({
      agentId,
      ...(prefix !== undefined ? { keyPrefix: prefix } : {}),
      text: query.q,
      limit: query.limit,
    });
    const sessions = await Promise.all(titled.map((key) => this.sessions.get(key)));
    return {
      sessions: sessions.flatMap((found) => (found ? [view(found)] : [])),
      results: hits.map((hit) => ({ ...hit, sessionId: sessionIdOf(hit.sessionKey) })),
    };
  }

  /** Compacts a session now: the memory flush, then a summary of all but its newest turns. */
  async compact(
    agentId: string,
    key: string,
    caller: Principal | undefined,
    signal: AbortSignal,
  ): Promise<CompactAnswer> {
    const summary = await this.summary(agentId, key, caller);
    const result = await this.memory.compact(agentId, summary.key, signal);
    return {
      compacted: result.compacted,
      folded: result.folded,
      flushed: result.flushed,
      ...(result.reason ? { reason: result.reason } : {}),
      ...(result.summary
        ? {
            summary: {
              id: result.summary.id,
              firstId: result.summary.firstId,
              lastId: result.summary.lastId,
              content: result.summary.content,
            },
          }
        : {}),
    };
  }

  /** Renames, pins, archives, or moves a conversation to another agent the caller may use. */
  async update(
    agentId: string,
    key: string,
    body: UpdateBody,
    caller: Principal | undefined,
  ): Promise<SessionView> {
    const summary = await this.summary(agentId, key, caller);
    if (body.title !== undefined) await this.sessions.setTitle(summary.key, body.title);
    await this.sessions.setMarks(summary.key, {
      ...(body.pinned === undefined ? {} : { pinned: body.pinned }),
      ...(body.archived === undefined ? {} : { archived: body.archived }),
    });
    let current = summary.key;
    if (body.agentId !== undefined && body.agentId !== agentId) {
      const target = body.agentId;
      this.agents.requireAgent(target);
      requireAgentAccess(caller, target);
      if (summary.channel !== 'api')
        throw invalid(
          `agentId: a conversation of the ${summary.channel} channel stays with its agent (only api conversations move)`,
        );
      current = `agent:${target}:${summary.key.slice(`agent:${agentId}:`.length)}`;
      const destination = current;
      await this.memory.locked(summary.key, () => this.sessions.move(summary.key, destination, target));
    }
    const updated = await this.sessions.get(current);
    if (!updated) throw notFound(`session "${key}" of agent "${agentId}" not found`);
    return view(updated);
  }

  async remove(agentId: string, key: string, caller: Principal | undefined): Promise<string> {
    const summary = await this.summary(agentId, key, caller);
    await this.sessions.clear(summary.key);
    return summary.key;
  }

  /**
   * The session a path names, if the caller may see it: a full key of this agent, or a chat
   * sessionId (the caller's own session of the api channel). Anything else is the same 404, so an
   * account cannot tell another's session from a missing one.
   */
  private async summary(
    agentId: string,
    given: string,
    caller: Principal | undefined,
  ): Promise<SessionSummary> {
    this.agents.requireAgent(agentId);
    const owner = sessionOwner(caller);
    const own = owner !== undefined ? accountPrefix(agentId, owner) : `agent:${agentId}:`;
    const key = given.startsWith('agent:')
      ? given
      : owner !== undefined
        ? `${own}${given}`
        : sessionKey({ agentId, channel: 'api', scope: DEFAULT_SCOPE, scopeId: given });
    const summary = key.startsWith(own) ? await this.sessions.get(key) : undefined;
    if (!summary) throw notFound(`session "${given}" of agent "${agentId}" not found`);
    return summary;
  }
}
