import type { SyncedServer } from '../catalog/official-registry.js';
import type { Queryable } from './db.js';

/** A stored server version: enough to tell whether a sync changed it. */
export interface StoredVersion {
  name: string;
  version: string;
  isLatest: boolean;
  status: SyncedServer['status'];
  updatedAt: string;
}

/** A latest version the catalog screen holds: the rules that hold it. */
export interface HeldVersion {
  source: string;
  name: string;
  version: string;
  rules: string[];
  updatedAt: string;
}

/** Servers that became searchable, whose searchable version changed, and that stopped being searchable. */
export interface SyncCounts {
  added: number;
  updated: number;
  hidden: number;
}

export interface SyncState {
  newestUpdatedAt?: string;
  lastSuccessAt?: number;
  /** Counts syncs that changed what is searchable; part of the catalog fingerprint. */
  generation: number;
}

type Row = {
  name: string;
  version: string;
  is_latest: number;
  status: SyncedServer['status'];
  status_message: string | null;
  updated_at: string;
  data: string;
};

const toStored = (r: Row): StoredVersion => ({
  name: r.name,
  version: r.version,
  isLatest: r.is_latest === 1,
  status: r.status,
  updatedAt: r.updated_at,
});

/** Servers synced from MCP registries, their sync state, and named leases. */
export const registryStore = {
  async versionsOf(q: Queryable, source: string, names: readonly string[]): Promise<StoredVersion[]> {
    const out: StoredVersion[] = [];
    // Bounded IN lists: SQLite's default limit on bound parameters is far above this.
    for (let i = 0; i < names.length; i += 500) {
      const chunk = names.slice(i, i + 500);
      const rows = await q.all<Row>(
        `SELECT name, version, is_latest, status, status_message, updated_at, data FROM registry_servers
          WHERE source = ? AND name IN (${chunk.map(() => '?').join(', ')})`,
        [source, ...chunk],
      );
      out.push(...rows.map(toStored));
    }
    return out;
  },

  /** Names of `source` with more than one version, not deleted, flagged latest (a repair skipped). */
  async severalLatest(q: Queryable, source: string): Promise<string[]> {
    const rows = await q.all<{ name: string }>(
      `SELECT name FROM registry_servers WHERE source = ? AND is_latest = 1 AND status != 'deleted'
        GROUP BY name HAVING COUNT(*) > 1 ORDER BY name`,
      [source],
    );
    return rows.map((r) => r.name);
  },

  /**
   * Stores a version with the catalog screen's verdict: `held` the rules that hold it, empty when it passed. An
   * operator's release of the version survives only while its text (`data`) stays the same.
   */
  async upsert(q: Queryable, source: string, s: SyncedServer, held: readonly string[]): Promise<void> {
    await q.run(
      `INSERT INTO registry_servers (source, name, version, is_latest, status, status_message, updated_at, data, held)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (source, name, version) DO UPDATE SET is_latest = excluded.is_latest, status = excluded.status,
         status_message = excluded.status_message, updated_at = excluded.updated_at, data = excluded.data,
         held = excluded.held,
         released = CASE WHEN registry_servers.data = excluded.data THEN registry_servers.released ELSE 0 END`,
      [
        source,
        s.name,
        s.version,
        s.isLatest ? 1 : 0,
        s.status,
        s.statusMessage ?? null,
        s.updatedAt,
        JSON.stringify(s.detail),
        held.join(','),
      ],
    );
  },

  /** Versions stored before the catalog screen ran (held is NULL), with their details, to be screened. */
  async unscreened(
    q: Queryable,
  ): Promise<Array<{ source: string; name: string; version: string; detail: SyncedServer['detail'] }>> {
    const rows = await q.all<{ source: string; name: string; version: string; data: string }>(
      'SELECT source, name, version, data FROM registry_servers WHERE held IS NULL',
    );
    return rows.map((r) => ({ source: r.source, name: r.name, version: r.version, detail: JSON.parse(r.data) }));
  },

  /** Records the screen's verdict on a version stored unscreened; a version a sync stored since keeps its own. */
  async setHeld(q: Queryable, source: string, name: string, version: string, held: readonly string[]): Promise<void> {
    await q.run('UPDATE registry_servers SET held = ? WHERE source = ? AND name = ? AND version = ? AND held IS NULL', [
      held.join(','),
      source,
      name,
      version,
    ]);
  },

  /** Makes `version` the only latest version of `name`. */
  async setLatest(q: Queryable, source: string, name: string, version: string): Promise<void> {
    await q.run(
      'UPDATE registry_servers SET is_latest = CASE WHEN version = ? THEN 1 ELSE 0 END WHERE source = ? AND name = ?',
      [version, source, name],
    );
  },

  /**
   * The searchable version of each of `names`, as `visible` picks it; names with none are absent. Found by name
   * alone (its index), then filtered: a planner without statistics yet (a first sync) would scan every latest row.
   * PostgreSQL gets the names as one array: a list of bound values there is planned far more slowly.
   */
  async visibleOf(q: Queryable, names: readonly string[]): Promise<Map<string, StoredVersion>> {
    const out = new Map<string, StoredVersion>();
    for (let i = 0; i < names.length; i += 500) {
      const chunk = names.slice(i, i + 500);
      const [match, params] =
        q.dialect === 'postgres'
          ? ['name = ANY(?::text[])', [chunk]]
          : [`name IN (${chunk.map(() => '?').join(', ')})`, chunk];
      const rows = await q.all<Omit<Row, 'data' | 'status_message'> & { held: string | null; released: number }>(
        `SELECT name, version, is_latest, status, updated_at, held, released FROM registry_servers
          WHERE ${match} ORDER BY name, source, version`,
        params,
      );
      for (const r of rows)
        if (r.is_latest === 1 && r.status !== 'deleted' && (r.held === '' || r.released === 1) && !out.has(r.name))
          out.set(r.name, toStored({ ...r, status_message: null, data: '' }));
    }
    return out;
  },

  /**
   * Latest versions that are neither deleted nor held by the catalog screen (unless an operator released them),
   * across sources (first source by name wins a name), by name. A name whose latest version is held has none: an
   * older version would show text the registry no longer serves while its package (launched without a version) runs
   * the new one.
   */
  async visible(q: Queryable): Promise<SyncedServer[]> {
    const rows = await q.all<Row & { source: string }>(
      `SELECT source, name, version, is_latest, status, status_message, updated_at, data FROM registry_servers
        WHERE is_latest = 1 AND status != 'deleted' AND (held = '' OR released = 1) ORDER BY name, source, version`,
    );
    const seen = new Set<string>();
    const out: SyncedServer[] = [];
    for (const r of rows) {
      if (seen.has(r.name)) continue;
      seen.add(r.name);
      out.push({
        ...toStored(r),
        ...(r.status_message !== null && { statusMessage: r.status_message }),
        detail: JSON.parse(r.data) as SyncedServer['detail'],
      });
    }
    return out;
  },

  /** Latest, not deleted versions the catalog screen holds and no operator released, by name. */
  async heldVersions(q: Queryable): Promise<HeldVersion[]> {
    const rows = await q.all<{ source: string; name: string; version: string; held: string; updated_at: string }>(
      `SELECT source, name, version, held, updated_at FROM registry_servers
        WHERE is_latest = 1 AND status != 'deleted' AND held != '' AND released = 0 ORDER BY name, source`,
    );
    return rows.map((r) => ({
      source: r.source,
      name: r.name,
      version: r.version,
      rules: r.held.split(','),
      updatedAt: r.updated_at,
    }));
  },

  /**
   * Releases the held latest versions of `name` (an operator's judgement over the screen's) and moves their
   * sources' generation so every instance re-imports; the number released.
   */
  async release(q: Queryable, name: string): Promise<number> {
    const held = await q.all<{ source: string }>(
      `SELECT source FROM registry_servers
        WHERE name = ? AND is_latest = 1 AND status != 'deleted' AND held != '' AND released = 0`,
      [name],
    );
    for (const { source } of held) {
      await q.run(
        `UPDATE registry_servers SET released = 1
          WHERE source = ? AND name = ? AND is_latest = 1 AND status != 'deleted' AND held != ''`,
        [source, name],
      );
      await q.run('UPDATE registry_sync_state SET generation = generation + 1 WHERE source = ?', [source]);
    }
    return held.length;
  },

  async state(q: Queryable, source: string): Promise<SyncState> {
    const r = await q.get<{ newest_updated_at: string | null; last_success_at: number | null; generation: number }>(
      'SELECT newest_updated_at, last_success_at, generation FROM registry_sync_state WHERE source = ?',
      [source],
    );
    return {
      ...(r?.newest_updated_at && { newestUpdatedAt: r.newest_updated_at }),
      ...(r?.last_success_at != null && { lastSuccessAt: r.last_success_at }),
      generation: r?.generation ?? 0,
    };
  },

  /** Sum of every source's generation: changes whenever a sync changed what is searchable. */
  async generation(q: Queryable): Promise<number> {
    return (await q.get<{ n: number | null }>('SELECT SUM(generation) AS n FROM registry_sync_state'))?.n ?? 0;
  },

  /**
   * Adds what one applied part of a sync of `source` changed (servers added, updated, hidden) to its pending
   * counts and moves its generation, so every instance re-imports even if the sync never finishes.
   */
  async addPending(q: Queryable, source: string, c: SyncCounts): Promise<void> {
    await q.run(
      `INSERT INTO registry_sync_state (source, generation, pending_added, pending_updated, pending_hidden)
       VALUES (?, 1, ?, ?, ?)
       ON CONFLICT (source) DO UPDATE SET generation = registry_sync_state.generation + 1,
         pending_added = registry_sync_state.pending_added + excluded.pending_added,
         pending_updated = registry_sync_state.pending_updated + excluded.pending_updated,
         pending_hidden = registry_sync_state.pending_hidden + excluded.pending_hidden`,
      [source, c.added, c.updated, c.hidden],
    );
  },

  /**
   * Ends a sync of `source` whose every part is applied: moves its watermark and last success, and hands over
   * (and clears) the pending counts, an interrupted earlier sync's included.
   */
  async finish(q: Queryable, source: string, newestUpdatedAt: string | undefined, at: number): Promise<SyncCounts> {
    const r = await q.get<{ pending_added: number; pending_updated: number; pending_hidden: number }>(
      'SELECT pending_added, pending_updated, pending_hidden FROM registry_sync_state WHERE source = ?',
      [source],
    );
    await q.run(
      `INSERT INTO registry_sync_state (source, newest_updated_at, last_success_at) VALUES (?, ?, ?)
       ON CONFLICT (source) DO UPDATE SET newest_updated_at = excluded.newest_updated_at,
         last_success_at = excluded.last_success_at, pending_added = 0, pending_updated = 0, pending_hidden = 0`,
      [source, newestUpdatedAt ?? null, at],
    );
    return { added: r?.pending_added ?? 0, updated: r?.pending_updated ?? 0, hidden: r?.pending_hidden ?? 0 };
  },
};
