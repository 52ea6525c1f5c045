// Branches of a conversation. Messages form a tree: editing a sent message and resending it, or
// regenerating an answer, starts a sibling of the message it replaces; the session records its
// active leaf, and the active branch is the path from the first message to that leaf. A session
// that never branched keeps parent_id null and leaf_id null: its active branch is every message in
// id order, read as before (no extra query per turn). Its first branch links every message to the
// one before it (0: the first) and sets the leaf, in one transaction.
import { sql } from 'kysely';
import { notFound } from '../core/errors.ts';
import type { Db } from './database.ts';

/** A message's place in the tree: its id and the id of the message it follows (0: none). */
export interface TreeNode {
  id: number;
  parentId: number;
}

/** The ids from the first message to `leaf`, oldest first (empty for leaf 0). */
export function pathTo(leaf: number, parents: Map<number, number>): number[] {
  const path: number[] = [];
  // A parent always has a smaller id, so the walk ends; the guard only stops a corrupted loop.
  for (let id = leaf; id > 0 && path.length <= parents.size; id = parents.get(id) ?? 0) {
    if (!parents.has(id)) break;
    path.push(id);
  }
  return path.reverse();
}

/** Each message's children, oldest first (0 holds the first messages of the branches). */
export function childrenOf(nodes: TreeNode[]): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const node of [...nodes].sort((a, b) => a.id - b.id)) {
    const list = children.get(node.parentId) ?? [];
    list.push(node.id);
    children.set(node.parentId, list);
  }
  return children;
}

/** The newest message under `id` (itself when it has none): where that branch was left. */
export function newestUnder(id: number, children: Map<number, number[]>): number {
  let newest = id;
  const stack = [id];
  while (stack.length > 0) {
    const next = stack.pop() as number;
    for (const child of children.get(next) ?? []) {
      if (child > newest) newest = child;
      stack.push(child);
    }
  }
  return newest;
}

/** A branched session's tree and active path; undefined while the session never branched. */
export interface SessionTree {
  leaf: number;
  nodes: TreeNode[];
  /** The active path's ids, oldest first. */
  path: number[];
  onPath: Set<number>;
}

/** The active leaf of a session: a message id, 0 (an empty branch), or null (never branched). */
export async function leafOf(db: Db, key: string): Promise<number | null | undefined> {
  const row = await db.selectFrom('sessions').select('leaf_id').where('key', '=', key).executeTakeFirst();
  if (!row) return undefined;
  return row.leaf_id === null ? null : Number(row.leaf_id);
}

/** The rows on the active path of `tree`, by the message id `idOf` names; all while it never branched. */
export function onActivePath<T>(rows: T[], tree: SessionTree | undefined, idOf: (row: T) => unknown): T[] {
  const onPath = tree?.onPath;
  return onPath ? rows.filter((row) => onPath.has(Number(idOf(row)))) : rows;
}

/** The session's tree, or undefined while it never branched. */
export async function treeOf(db: Db, key: string): Promise<SessionTree | undefined> {
  const leaf = await leafOf(db, key);
  if (leaf === null || leaf === undefined) return undefined;
  const rows = await db
    .selectFrom('session_messages')
    .select(['id', 'parent_id'])
    .where('session_key', '=', key)
    .execute();
  const nodes = rows.map((row) => ({ id: Number(row.id), parentId: Number(row.parent_id ?? 0) }));
  const path = pathTo(leaf, new Map(nodes.map((node) => [node.id, node.parentId])));
  return { leaf, nodes, path, onPath: new Set(path) };
}

/**
 * Turns a session that never branched into a tree: every message follows the one before it, and
 * the newest is the leaf. Nothing happens to a session that is a tree already.
 */
export async function branchOut(db: Db, key: string): Promise<void> {
  await sql`
    update session_messages set parent_id = coalesce(
      (select max(p.id) from session_messages p
        where p.session_key = session_messages.session_key and p.id < session_messages.id), 0)
    where session_key = ${key} and parent_id is null`.execute(db);
  const newest = await db
    .selectFrom('session_messages')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('session_key', '=', key)
    .executeTakeFirst();
  await db
    .updateTable('sessions')
    .set({ leaf_id: Number(newest?.id ?? 0) })
    .where('key', '=', key)
    .where('leaf_id', 'is', null)
    .execute();
}

/**
 * Makes `leaf` (a message of the session, or 0 for an empty branch) the active leaf: the next
 * message appended follows it. Throws 404 for a message of another session.
 */
export async function checkout(db: Db, key: string, leaf: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (leaf !== 0) {
      const found = await trx
        .selectFrom('session_messages')
        .select('id')
        .where('id', '=', leaf)
        .where('session_key', '=', key)
        .executeTakeFirst();
      if (!found) throw notFound(`message ${leaf} is not in this conversation`);
    }
    await branchOut(trx, key);
    await trx.updateTable('sessions').set({ leaf_id: leaf }).where('key', '=', key).execute();
  });
}
