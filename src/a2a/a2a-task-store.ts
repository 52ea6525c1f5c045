// A2A tasks in memory, kept per caller (the SDK's userName) and bounded: past `limit` tasks the
// oldest saved one is forgotten, so a busy server's memory stays flat. A task lives as long as its
// turn plus a while after it, for GetTask and re-subscribing; its conversation is kept in the
// session (the task's contextId), which survives restarts.
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

export class BoundedTaskStore implements TaskStore {
  /** `${owner}\n${taskId}` -> task; a Map keeps insertion order, so the first key is the oldest. */
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly limit = 10_000) {}

  private key(taskId: string, context: ServerCallContext): string {
    return `${context.user?.userName ?? 'anonymous'}\n${taskId}`;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const key = this.key(task.id, context);
    this.tasks.delete(key);
    this.tasks.set(key, structuredClone(task));
    while (this.tasks.size > this.limit) {
      const oldest = this.tasks.keys().next().value;
      if (oldest === undefined) break;
      this.tasks.delete(oldest);
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = this.tasks.get(this.key(taskId, context));
    return task ? structuredClone(task) : undefined;
  }

  /** The caller's tasks, newest first, filtered by context and state; pages by offset. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const prefix = `${context.user?.userName ?? 'anonymous'}\n`;
    const mine = [...this.tasks.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, task]) => task)
      .filter((task) => !params.contextId || task.contextId === params.contextId)
      .filter((task) => !params.status || task.status?.state === params.status)
      .reverse();
    const pageSize = Math.min(Math.max(params.pageSize ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
    const offset = Number.parseInt(params.pageToken || '0', 10) || 0;
    const page = mine.slice(offset, offset + pageSize).map((task) => {
      const copy = structuredClone(task);
      if (!params.includeArtifacts) copy.artifacts = [];
      return copy;
    });
    const next = offset + pageSize < mine.length ? String(offset + pageSize) : '';
    return { tasks: page, nextPageToken: next, pageSize, totalSize: mine.length };
  }
}
