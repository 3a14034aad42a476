import type { Queryable } from './queryable.js';

/** SQL for the a2a_tasks table (migration 075): A2A tasks as JSON documents. */
export const a2aTasksStore = {
  async save(q: Queryable, task: { id: string; contextId: string; json: string }, now: number): Promise<void> {
    await q.run(
      `INSERT INTO a2a_tasks (id, context_id, task, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET task = excluded.task, updated_at = excluded.updated_at`,
      [task.id, task.contextId, task.json, now],
    );
  },

  async load(q: Queryable, id: string): Promise<string | undefined> {
    return (await q.get<{ task: string }>('SELECT task FROM a2a_tasks WHERE id = ?', [id]))?.task;
  },

  /** The newest `limit` tasks of one context (newest first, then by id descending), as JSON with their keys. */
  async byContext(
    q: Queryable,
    contextId: string,
    limit: number,
  ): Promise<Array<{ id: string; updatedAt: number; task: string }>> {
    const rows = await q.all<{ id: string; updated_at: number | string; task: string }>(
      'SELECT id, updated_at, task FROM a2a_tasks WHERE context_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?',
      [contextId, limit],
    );
    return rows.map((r) => ({ id: r.id, updatedAt: Number(r.updated_at), task: r.task }));
  },

  async deleteOlderThan(q: Queryable, before: number): Promise<void> {
    await q.run('DELETE FROM a2a_tasks WHERE updated_at < ?', [before]);
  },
};
