// Where a turn of a session starts when it does not simply follow the conversation's active branch:
// after an earlier message (editing a sent message and resending it starts a sibling branch), or as
// a new version of the answer to a stored user message (regenerate). Messages are never replaced:
// the session's active leaf moves, and the other branches stay stored (see session-branches.ts).
import { invalid, notFound } from '../core/errors.ts';
import type { SessionStore } from '../storage/session-store.ts';

export interface TurnBranch {
  /** The stored message the new user message follows; 0 starts the conversation over. */
  parentId?: number;
  /** A stored user message of the session answered again: a new version of its answer. */
  regenerate?: number;
}

export interface BranchStart {
  /** The message the turn's history ends at (0: none). */
  leaf: number;
  /** The regenerated user message's text and pictures: the turn's input. */
  input?: { text: string; images?: string[] };
}

/** Checks a branch against the stored session (404 for a message not in it, 400 for a wrong kind). */
export async function branchStart(
  sessions: Pick<SessionStore, 'message'>,
  key: string,
  branch: TurnBranch,
): Promise<BranchStart> {
  if (branch.regenerate !== undefined) {
    const stored = await sessions.message(key, branch.regenerate);
    if (!stored) throw notFound(`message ${branch.regenerate} is not in this conversation`);
    const message = stored.message;
    if (message.role !== 'user')
      throw invalid(`regenerate: message ${branch.regenerate} is not a user message`);
    return {
      leaf: stored.parentId,
      input: { text: message.content, ...(message.images ? { images: message.images } : {}) },
    };
  }
  const parentId = branch.parentId ?? 0;
  if (parentId !== 0 && !(await sessions.message(key, parentId)))
    throw notFound(`message ${parentId} is not in this conversation`);
  return { leaf: parentId };
}
