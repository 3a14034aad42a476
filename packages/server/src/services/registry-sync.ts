// Syncs MCP servers from a registry speaking the official v0.1 API into the skills catalog: every page of
// /v0.1/servers since the newest updatedAt seen (minus a margin), upserted on name + version in one
// transaction once all pages arrived, so an unreachable or failing registry leaves what was there. A malformed
// entry is skipped alone; a version whose agent-facing text the catalog screen flags is stored but held (screened
// before the transaction, since the screen's semantic layer may call the sentence model).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ERROR_CODES } from '@axle/sdk';
import {
  agentFacingTexts,
  type ParsedEntry,
  parseEntry,
  ServerListPage,
  type SyncedServer,
} from '../catalog/official-registry.js';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { Transactor } from '../store/queryable.js';
import { leasesStore } from '../store/leases.js';
import { type HeldVersion, registryStore } from '../store/registry.js';
import { type CatalogScreen, createCatalogScreen } from './catalog-screen.js';

/** Page size asked of the registry (its documented maximum); a page of more fails the sync. */
export const PAGE_LIMIT = 100;
/** `updated_since` goes this far before the newest updatedAt seen: clocks and commits are not instant. */
export const UPDATED_SINCE_MARGIN_MS = 5 * 60_000;
/** Pages one sync reads at most (200,000 server versions). */
export const MAX_PAGES = 2000;
/** A registry answer larger than this is refused (a page of 100 servers is far smaller). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/**
 * The bytes one sync reads at most, its pages and /versions/latest answers together: what arrives is held until
 * the sync's transaction, so without this a registry could fill the server's memory a page at a time (MAX_PAGES x
 * MAX_RESPONSE_BYTES). A full listing of the official registry is a small part of it.
 */
export const MAX_SYNC_BYTES = 256 * 1024 * 1024;
/** How long one sync may spend reading a registry, all its requests together; well inside LEASE_MS. */
export const MAX_SYNC_READ_MS = 10 * 60_000;

/** What one sync may still read: bytes left, and the deadline of its reading (MAX_SYNC_BYTES, MAX_SYNC_READ_MS). */
interface ReadBudget {
  left: number;
  readonly deadline: AbortSignal;
}
/** One registry request may take this long. */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Redirects a registry request follows, all within the registry's own origin: the operator named that origin, and a
 * registry that sends the server elsewhere (another host, a cloud metadata address) is not followed there.
 */
export const MAX_REDIRECTS = 5;
/**
 * How long a scheduled check waits for the sentence model still loading: the job that runs it looks every few
 * minutes, so a check that gave up at once left a server's first sync minutes late.
 */
export const MODEL_WARM_WAIT_MS = 30_000;
/** The lease a scheduled sync holds: longer than its reading may take (MAX_SYNC_READ_MS) and its screening. */
export const LEASE_NAME = 'registry-sync';
export const LEASE_MS = 15 * 60_000;

export interface SyncReport {
  source: string;
  /** Servers that became searchable, whose searchable version changed, and that stopped being searchable. */
  added: number;
  updated: number;
  hidden: number;
  /**
   * Server versions parsed from the pages (malformed ones are in `skipped`), pages read, names whose latest flag
   * was asked of the registry.
   */
  received: number;
  pages: number;
  repaired: number;
  /** Malformed entries left out (list entries and /versions/latest answers). */
  skipped: number;
  /** Versions screened in this sync that the catalog screen held: stored, never searchable. */
  held: number;
  /** Versions screened in this sync by the regex screen alone (the sentence model off, loading or failing). */
  regexOnly: number;
}

export interface RegistrySync {
  /** Syncs from `source` (the registry's base URL); throws DomainError PROVIDER_UNAVAILABLE and changes nothing when it fails. */
  sync(source: string): Promise<SyncReport>;
  /** The scheduled run: syncs the configured source when it is due and this instance holds the lease. */
  tick(): Promise<SyncReport | undefined>;
  /** Latest versions the catalog screen holds, for an operator to review. */
  held(): Promise<HeldVersion[]>;
  /**
   * Makes the held latest version of `name` searchable (an operator overruling the screen) until a sync brings
   * other text for it; the number of versions released (0 when none of `name` is held).
   */
  release(name: string): Promise<number>;
}

export interface RegistrySyncDeps {
  db: Transactor;
  clock: Clock;
  logger: Logger;
  /** Called after a sync changed what is searchable (the skills service re-imports its catalog). */
  onChange: () => Promise<unknown>;
  /** AXLE_REGISTRY_SYNC_URL: the scheduled source. */
  source?: string;
  /** How often the scheduled source is synced. */
  intervalMs?: number;
  fetch?: typeof globalThis.fetch;
  /** This instance's name in the lease table. */
  holder?: string;
  /** Bound on one registry answer (MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** Bound on what one sync reads (MAX_SYNC_BYTES). */
  maxSyncBytes?: number;
  /** Bound on how long one sync reads (MAX_SYNC_READ_MS). */
  maxSyncReadMs?: number;
  /** How long one registry request may take, its body included (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  /** The catalog screen; the regex screen alone by default. */
  screen?: CatalogScreen;
}

const unavailable = (source: string, why: string) =>
  new DomainError(ERROR_CODES.PROVIDER_UNAVAILABLE, `MCP registry ${source} unavailable: ${why}`);

/** What makes a searchable server version differ from another. */
const fingerprintOf = (s: { version: string; status: string; updatedAt: string }) =>
  `${s.version}\0${s.status}\0${s.updatedAt}`;

export function createRegistrySync(deps: RegistrySyncDeps): RegistrySync {
  const fetchFn = deps.fetch ?? globalThis.fetch;
  const holder = deps.holder ?? randomUUID();
  const intervalMs = deps.intervalMs ?? 60 * 60_000;
  const maxBytes = deps.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const maxSyncBytes = deps.maxSyncBytes ?? MAX_SYNC_BYTES;
  const maxSyncReadMs = deps.maxSyncReadMs ?? MAX_SYNC_READ_MS;
  const timeoutMs = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const catalogScreen = deps.screen ?? createCatalogScreen({ model: undefined, logger: deps.logger });

  /** Why reading failed: the sync's own deadline when that is what fired, else the error's message. */
  const readFailure = (source: string, err: unknown, budget: ReadBudget) =>
    err instanceof DomainError
      ? err
      : unavailable(
          source,
          budget.deadline.aborted ? `more than ${maxSyncReadMs / 1000} s reading in one sync` : (err as Error).message,
        );

  /** The answer to GET `url`, after redirects within its origin (MAX_REDIRECTS); one deadline covers them all. */
  async function fetchWithin(source: string, url: URL, signal: AbortSignal, budget: ReadBudget): Promise<Response> {
    let target = url;
    for (let hops = 0; ; hops++) {
      let res: Response;
      try {
        res = await fetchFn(target, { signal, redirect: 'manual' });
      } catch (err) {
        throw readFailure(source, err, budget);
      }
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (location === null) return res;
      await res.body?.cancel();
      const next = URL.canParse(location, target.href) ? new URL(location, target) : undefined;
      if (next === undefined || next.origin !== url.origin)
        throw unavailable(source, `${url.pathname} redirects to another origin; not followed`);
      if (hops === MAX_REDIRECTS)
        throw unavailable(source, `more than ${MAX_REDIRECTS} redirects from ${url.pathname}`);
      target = next;
    }
  }

  /** The JSON answer to GET `url`, within REQUEST_TIMEOUT_MS and what its sync may still read (`budget`). */
  async function getJson(source: string, url: URL, budget: ReadBudget): Promise<unknown> {
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), budget.deadline]);
    const res = await fetchWithin(source, url, signal, budget);
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw unavailable(source, `HTTP ${res.status} from ${url.pathname}`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body ?? []) {
        size += chunk.byteLength;
        budget.left -= chunk.byteLength;
        // Leaving the loop cancels the body (the stream's iterator does).
        if (size > maxBytes) throw unavailable(source, `more than ${maxBytes} bytes from ${url.pathname}`);
        if (budget.left < 0) throw unavailable(source, `more than ${maxSyncBytes} bytes in one sync`);
        chunks.push(chunk);
      }
    } catch (err) {
      throw readFailure(source, err, budget);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw unavailable(source, `invalid JSON from ${url.pathname}`);
    }
  }

  const endpoint = (source: string, path: string) => new URL(path, source.endsWith('/') ? source : `${source}/`);

  /** The entry's server version, or undefined when it is malformed (logged with its name, when it has one). */
  function accepted(source: string, parsed: ParsedEntry, where: string): SyncedServer | undefined {
    if (parsed.ok) return parsed.server;
    deps.logger.warn({ source, name: parsed.name, reason: parsed.reason }, `registry sync: malformed ${where} skipped`);
    return undefined;
  }

  async function readPages(source: string, since: string | undefined, budget: ReadBudget) {
    const received: SyncedServer[] = [];
    let skipped = 0;
    let cursor: string | undefined;
    const cursors = new Set<string>();
    let pages = 0;
    do {
      if (pages === MAX_PAGES) throw unavailable(source, `more than ${MAX_PAGES} pages`);
      const url = endpoint(source, 'v0.1/servers');
      url.searchParams.set('limit', String(PAGE_LIMIT));
      if (cursor) url.searchParams.set('cursor', cursor);
      if (since) url.searchParams.set('updated_since', since);
      const parsed = ServerListPage.safeParse(await getJson(source, url, budget));
      if (!parsed.success)
        throw unavailable(source, `unexpected /v0.1/servers page: ${parsed.error.issues[0]?.message}`);
      // A registry that ignores the limit would pass MAX_PAGES' bound on versions (and the one transaction's size).
      if (parsed.data.servers.length > PAGE_LIMIT)
        throw unavailable(
          source,
          `${parsed.data.servers.length} servers in a /v0.1/servers page (limit=${PAGE_LIMIT})`,
        );
      for (const entry of parsed.data.servers) {
        const server = accepted(source, parseEntry(entry), 'entry');
        if (server) received.push(server);
        else skipped += 1;
      }
      pages += 1;
      cursor = parsed.data.metadata?.nextCursor || undefined;
      // A cursor seen before would page in a circle: the list is not what the registry holds.
      if (cursor !== undefined && cursors.has(cursor)) throw unavailable(source, 'a /v0.1/servers cursor came back');
      if (cursor !== undefined) cursors.add(cursor);
    } while (cursor);
    return { received, pages, skipped };
  }

  /**
   * The latest version of `name` per the registry, undefined when malformed or absent: a 404 for a name the list
   * just showed contradicts it (a replica behind, a cache), and clearing every flag on it would hide the server
   * for good once updated_since passes its versions; left as it is, a name with several flags is asked again.
   */
  async function latestOf(source: string, name: string, budget: ReadBudget): Promise<SyncedServer | undefined> {
    const url = endpoint(source, `v0.1/servers/${encodeURIComponent(name)}/versions/latest`);
    const body = await getJson(source, url, budget);
    const parsed: ParsedEntry = body === undefined ? { ok: false, name, reason: 'HTTP 404' } : parseEntry(body);
    // An answer about another server would be stored as that server's latest version, its flags unchecked.
    if (parsed.ok && parsed.server.name !== name)
      return accepted(
        source,
        { ok: false, name, reason: `server.name: ${parsed.server.name}, not the name asked` },
        '/versions/latest answer',
      );
    return accepted(source, parsed, '/versions/latest answer');
  }

  /** The catalog screen's verdict on a version's agent-facing text; logged when it holds the version. */
  async function screened(source: string, s: Pick<SyncedServer, 'name' | 'version' | 'detail'>) {
    const verdict = await catalogScreen.screen(agentFacingTexts(s.detail));
    if (verdict.held)
      deps.logger.warn({ source, name: s.name, version: s.version, rules: verdict.rules }, 'registry sync: held');
    return verdict;
  }

  async function sync(source: string): Promise<SyncReport> {
    const state = await registryStore.state(deps.db, source);
    const since =
      state.newestUpdatedAt === undefined
        ? undefined
        : new Date(Date.parse(state.newestUpdatedAt) - UPDATED_SINCE_MARGIN_MS).toISOString();
    const budget: ReadBudget = { left: maxSyncBytes, deadline: AbortSignal.timeout(maxSyncReadMs) };
    // Pages come in name order: a version changed after its page was read is seen by the next sync only if
    // updated_since does not pass the moment reading began.
    const startedAt = new Date(deps.clock.now()).toISOString();
    const { received, pages, skipped: malformed } = await readPages(source, since, budget);
    let skipped = malformed;

    // Latest flags as they will stand: stored versions overlaid with what arrived. A name whose versions do
    // not show exactly one latest (a flip that left the old version's updatedAt alone, or a page boundary
    // between them) is asked of the registry; so is one stored with several, whose repair an earlier sync
    // skipped (the feed, past its versions' updatedAt, will not name it again).
    const names = [
      ...new Set([...received.map((r) => r.name), ...(await registryStore.severalLatest(deps.db, source))]),
    ];
    const stored = await registryStore.versionsOf(deps.db, source, names);
    const latestByName = new Map<string, Map<string, boolean>>();
    for (const v of [...stored, ...received]) {
      const versions = latestByName.get(v.name) ?? new Map<string, boolean>();
      versions.set(v.version, v.isLatest);
      latestByName.set(v.name, versions);
    }
    const disagreeing = names.filter((n) => [...latestByName.get(n)!.values()].filter(Boolean).length !== 1);
    const repairs = new Map<string, SyncedServer>();
    for (const name of disagreeing) {
      const latest = await latestOf(source, name, budget);
      if (latest === undefined) skipped += 1;
      else repairs.set(name, latest);
    }

    // Never past this instance's clock when reading began: one entry dated in the future, or one read minutes
    // after an earlier page, would hide later changes.
    const newest = received.reduce<string | undefined>((max, r) => {
      const at = Date.parse(r.updatedAt) > Date.parse(startedAt) ? startedAt : r.updatedAt;
      return max === undefined || Date.parse(at) > Date.parse(max) ? at : max;
    }, state.newestUpdatedAt);

    let held = 0;
    let regexOnly = 0;
    const screen = async (s: string, v: Pick<SyncedServer, 'name' | 'version' | 'detail'>) => {
      const verdict = await screened(s, v);
      if (verdict.held) held += 1;
      if (!verdict.semantic) regexOnly += 1;
      return verdict.rules;
    };
    const rulesOf = new Map<SyncedServer, string[]>();
    for (const r of [...received, ...repairs.values()]) rulesOf.set(r, await screen(source, r));
    // Versions stored before the screen existed, of any source: screened here, before the transaction, so that a
    // model call never runs while it holds the writer.
    const verdicts: Array<{ source: string; name: string; version: string; rules: string[] }> = [];
    for (const u of await registryStore.unscreened(deps.db)) verdicts.push({ ...u, rules: await screen(u.source, u) });

    const report = await deps.db.tx(async (q) => {
      const before = new Map((await registryStore.visible(q)).map((s) => [s.name, fingerprintOf(s)]));
      for (const r of received) await registryStore.upsert(q, source, r, rulesOf.get(r)!);
      for (const [name, latest] of repairs) {
        await registryStore.upsert(q, source, { ...latest, isLatest: true }, rulesOf.get(latest)!);
        await registryStore.setLatest(q, source, name, latest.version);
      }
      for (const v of verdicts) await registryStore.setHeld(q, v.source, v.name, v.version, v.rules);
      const after = new Map((await registryStore.visible(q)).map((s) => [s.name, fingerprintOf(s)]));
      let added = 0;
      let updated = 0;
      let hidden = 0;
      for (const [name, fp] of after) {
        const was = before.get(name);
        if (was === undefined) added += 1;
        else if (was !== fp) updated += 1;
      }
      for (const name of before.keys()) if (!after.has(name)) hidden += 1;
      const changed = added + updated + hidden > 0;
      await registryStore.saveState(q, source, newest, deps.clock.now(), changed);
      return {
        source,
        added,
        updated,
        hidden,
        received: received.length,
        pages,
        repaired: repairs.size,
        skipped,
        held,
        regexOnly,
      };
    });
    if (report.added + report.updated + report.hidden > 0) await deps.onChange();
    deps.logger.info(report, 'registry sync');
    return report;
  }

  async function tick(): Promise<SyncReport | undefined> {
    const source = deps.source;
    if (source === undefined) return undefined;
    // Screening by regex alone while the sentence model loads would let a version through that it would hold.
    if (catalogScreen.warming())
      await Promise.race([catalogScreen.warmed(), sleep(MODEL_WARM_WAIT_MS, undefined, { ref: false })]);
    if (catalogScreen.warming()) return undefined;
    const now = deps.clock.now();
    if (!(await leasesStore.take(deps.db, LEASE_NAME, holder, now, now + LEASE_MS))) return undefined;
    try {
      const { lastSuccessAt } = await registryStore.state(deps.db, source);
      if (lastSuccessAt !== undefined && now - lastSuccessAt < intervalMs) return undefined;
      return await sync(source);
    } catch (err) {
      // Kept as it was; the next check retries.
      deps.logger.warn({ err: (err as Error).message, source }, 'registry sync failed');
      return undefined;
    } finally {
      await leasesStore.release(deps.db, LEASE_NAME, holder);
    }
  }

  return {
    sync,
    tick,
    held: () => registryStore.heldVersions(deps.db),
    async release(name) {
      const released = await deps.db.tx((q) => registryStore.release(q, name));
      if (released > 0) {
        deps.logger.info({ name, released }, 'registry sync: released by the operator');
        await deps.onChange();
      }
      return released;
    },
  };
}
