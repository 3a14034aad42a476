// Syncs MCP servers from a registry speaking the official v0.1 API into the skills catalog: every page of
// /v0.1/servers since the newest updatedAt seen (minus a margin), upserted on name + version once all pages
// arrived, so an unreachable or failing registry leaves what was there. What was read is applied in transactions
// of about CHUNK_VERSIONS writes, so other writes (payments, sign-ins) interleave with a large sync; the watermark
// moves only after the last. A malformed entry is skipped alone; a version whose agent-facing text the catalog
// screen flags is stored but held (screened before any transaction, since the screen's semantic layer may call the
// sentence model).
import { randomUUID } from 'node:crypto';
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
import type { Queryable, Transactor } from '../store/queryable.js';
import { leasesStore } from '../store/leases.js';
import { type HeldVersion, registryStore, type SyncCounts } from '../store/registry.js';
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
 * the sync applies it, so without this a registry could fill the server's memory a page at a time (MAX_PAGES x
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
 * The lease every sync holds (one at a time across instances): longer than its reading may take (MAX_SYNC_READ_MS)
 * and its screening; each of its transactions renews it, and fails when another instance took it meanwhile.
 */
export const LEASE_NAME = 'registry-sync';
export const LEASE_MS = 15 * 60_000;

/**
 * Server versions (and other writes) one transaction of a sync applies at most, so other writes wait for no more
 * than that; the writes that decide which version of one name is searchable share a transaction even when more.
 */
export const CHUNK_VERSIONS = 100;

/** One write of a sync: a version as listed, a name's latest version per /versions/latest, a screen's verdict. */
type Step =
  | { kind: 'upsert' | 'latest'; server: SyncedServer; rules: string[] }
  | { kind: 'verdict'; source: string; name: string; version: string; rules: string[] };

/** One transaction of a sync: its writes, and the names whose searchable version they may change. */
interface Chunk {
  names: Set<string>;
  steps: Step[];
}

/**
 * A sync's writes in transactions of about CHUNK_VERSIONS. The writes that may change which version of a name is
 * searchable (`decides`: a version flagged latest before or after; the repair; a verdict) go in one transaction,
 * in the order of one that applied them all, so an interrupted sync leaves each name as it was or as the
 * registry has it; versions that change nothing searchable go first, alone.
 */
function planChunks(
  received: readonly SyncedServer[],
  repairs: ReadonlyMap<string, SyncedServer>,
  verdicts: ReadonlyArray<{ source: string; name: string; version: string; rules: string[] }>,
  rulesOf: ReadonlyMap<SyncedServer, string[]>,
  decides: (r: SyncedServer) => boolean,
): Chunk[] {
  const quiet: Step[] = [];
  const byName = new Map<string, Step[]>();
  const of = (name: string) => byName.get(name) ?? byName.set(name, []).get(name)!;
  for (const r of received) {
    const step: Step = { kind: 'upsert', server: r, rules: rulesOf.get(r)! };
    if (decides(r)) of(r.name).push(step);
    else quiet.push(step);
  }
  for (const [name, latest] of repairs) of(name).push({ kind: 'latest', server: latest, rules: rulesOf.get(latest)! });
  for (const v of verdicts) of(v.name).push({ kind: 'verdict', ...v });

  const chunks: Chunk[] = [];
  let open: Chunk = { names: new Set(), steps: [] };
  const add = (name: string | undefined, steps: Step[]) => {
    if (open.steps.length > 0 && open.steps.length + steps.length > CHUNK_VERSIONS) {
      chunks.push(open);
      open = { names: new Set(), steps: [] };
    }
    if (name !== undefined) open.names.add(name);
    open.steps.push(...steps);
  };
  for (const step of quiet) add(undefined, [step]);
  for (const [name, steps] of byName) add(name, steps);
  if (open.steps.length > 0) chunks.push(open);
  return chunks;
}

export interface SyncReport {
  source: string;
  /**
   * Servers that became searchable, whose searchable version changed, and that stopped being searchable; with what
   * an interrupted earlier sync applied and never reported.
   */
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
  /**
   * Syncs from `source` (the registry's base URL) under the lease. Throws DomainError PROVIDER_UNAVAILABLE and
   * changes nothing when reading fails, CONFLICT when another sync holds the lease; one failing while it applies
   * leaves every name as it was or as read, and the next sync finishes the job.
   */
  sync(source: string): Promise<SyncReport>;
  /**
   * The scheduled run: syncs the configured source when it is due and this instance holds the lease. It waits for
   * the sentence model however long it loads (the job looks again only minutes later), until close().
   */
  tick(): Promise<SyncReport | undefined>;
  /** Ends a scheduled run's wait for the model (the server is closing; the model settles only after its jobs). */
  close(): void;
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
  let closed = false;
  let endWaits!: () => void;
  const closing = new Promise<void>((resolve) => (endWaits = resolve));

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
      // A registry that ignores the limit would pass MAX_PAGES' bound on versions.
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

  async function run(source: string): Promise<SyncReport> {
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
    // Versions stored before the screen existed, of any source: screened here, before any transaction, so that a
    // model call never runs while it holds the writer.
    const verdicts: Array<{ source: string; name: string; version: string; rules: string[] }> = [];
    for (const u of await registryStore.unscreened(deps.db)) verdicts.push({ ...u, rules: await screen(u.source, u) });

    const storedLatest = new Set(stored.filter((v) => v.isLatest).map((v) => `${v.name}\0${v.version}`));
    const chunks = planChunks(received, repairs, verdicts, rulesOf, (r) => {
      // A version flagged latest neither before nor after this sync changes nothing searchable.
      const quiet =
        !storedLatest.has(`${r.name}\0${r.version}`) &&
        latestByName.get(r.name)?.get(r.version) === false &&
        repairs.get(r.name)?.version !== r.version;
      return !quiet;
    });

    let changedHere = false;
    let counts: SyncCounts;
    try {
      for (const chunk of chunks) {
        const c = await applyChunk(source, chunk);
        if (c.added + c.updated + c.hidden > 0) changedHere = true;
      }
      // The watermark moves only now, every version read being stored: an interrupted sync reads them again.
      counts = await deps.db.tx(async (q) => {
        await renewLease(q);
        return registryStore.finish(q, source, newest, deps.clock.now());
      });
    } catch (err) {
      // What the applied transactions changed is searchable now; the next sync to finish counts it.
      if (changedHere)
        await deps.onChange().catch((e) => deps.logger.warn({ err: (e as Error).message }, 'catalog reload failed'));
      throw err;
    }
    const report: SyncReport = {
      source,
      ...counts,
      received: received.length,
      pages,
      repaired: repairs.size,
      skipped,
      held,
      regexOnly,
    };
    if (report.added + report.updated + report.hidden > 0) await deps.onChange();
    deps.logger.info(report, 'registry sync');
    return report;
  }

  /** Takes the lease again for LEASE_MS inside `q`'s transaction, which fails when another instance took it. */
  async function renewLease(q: Queryable) {
    const now = deps.clock.now();
    if (!(await leasesStore.take(q, LEASE_NAME, holder, now, now + LEASE_MS)))
      throw new DomainError(ERROR_CODES.CONFLICT, 'another registry sync holds the lease; this one stopped');
  }

  /** One transaction of a sync (under its lease): its steps, and what they changed of what is searchable. */
  function applyChunk(source: string, chunk: Chunk): Promise<SyncCounts> {
    const names = [...chunk.names];
    return deps.db.tx(async (q) => {
      await renewLease(q);
      const before = await registryStore.visibleOf(q, names);
      for (const step of chunk.steps) {
        if (step.kind === 'verdict') {
          await registryStore.setHeld(q, step.source, step.name, step.version, step.rules);
        } else if (step.kind === 'latest') {
          await registryStore.upsert(q, source, { ...step.server, isLatest: true }, step.rules);
          await registryStore.setLatest(q, source, step.server.name, step.server.version);
        } else {
          await registryStore.upsert(q, source, step.server, step.rules);
        }
      }
      const after = await registryStore.visibleOf(q, names);
      const counts = { added: 0, updated: 0, hidden: 0 };
      for (const [name, v] of after) {
        const was = before.get(name);
        if (was === undefined) counts.added += 1;
        else if (fingerprintOf(was) !== fingerprintOf(v)) counts.updated += 1;
      }
      for (const name of before.keys()) if (!after.has(name)) counts.hidden += 1;
      if (counts.added + counts.updated + counts.hidden > 0) await registryStore.addPending(q, source, counts);
      return counts;
    });
  }

  /** `run` under the sync lease; throws CONFLICT when another sync holds it. */
  async function sync(source: string): Promise<SyncReport> {
    const now = deps.clock.now();
    if (!(await leasesStore.take(deps.db, LEASE_NAME, holder, now, now + LEASE_MS)))
      throw new DomainError(ERROR_CODES.CONFLICT, 'another registry sync is running; try again later');
    try {
      return await run(source);
    } finally {
      await leasesStore.release(deps.db, LEASE_NAME, holder);
    }
  }

  async function tick(): Promise<SyncReport | undefined> {
    const source = deps.source;
    if (source === undefined) return undefined;
    // Screening by regex alone while the sentence model loads would let a version through that it would hold.
    if (catalogScreen.warming()) await Promise.race([catalogScreen.warmed(), closing]);
    if (catalogScreen.warming() || closed) return undefined;
    const now = deps.clock.now();
    if (!(await leasesStore.take(deps.db, LEASE_NAME, holder, now, now + LEASE_MS))) return undefined;
    try {
      const { lastSuccessAt } = await registryStore.state(deps.db, source);
      // A success more than an interval after `now` only a clock far ahead can have dated (another instance's, or
      // this one's before it was corrected): it does not count, as with job claims (store/job-leases.ts).
      if (lastSuccessAt !== undefined && now - lastSuccessAt < intervalMs && lastSuccessAt - now <= intervalMs)
        return undefined;
      return await run(source);
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
    close() {
      closed = true;
      endWaits();
    },
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
