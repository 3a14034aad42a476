import { chmod, rm, stat } from 'node:fs/promises';
import { BOM, backupPath, exists, readText, resolveLinks, withoutBom, writeAtomic } from '../lib/files.js';
import { EXIT, fail } from '../lib/exit.js';
import { type EditOutcome, sameJson } from './edit.js';
import type { McpEntry } from './entry.js';
import { isAxleEntry } from './entry.js';
import { type HookGroup, installHooks, removeHooks } from './hooks.js';
import { parseJsonc, removeJsonc, upsertJsonc, valueAt } from './jsonc.js';
import { readJson5, removeJson5, upsertJson5 } from './json5.js';
import { type ClientDef, type ClientId, SERVER_NAME, type Tier } from './registry.js';
import { readToml, removeToml, upsertToml } from './toml.js';

export type ChangeStatus = 'added' | 'updated' | 'unchanged' | 'removed' | 'absent' | 'corrupt' | 'conflict';

/** One client's row in setup's final table. */
export interface ClientReport {
  id: ClientId;
  name: string;
  tier: Tier;
  installed: boolean;
  config: string;
  mcp: ChangeStatus | 'skipped';
  hooks: ChangeStatus | 'none' | 'off';
  /** Why a file was left untouched. */
  problem?: string;
}

/**
 * Edits held in memory per file and written once each at the end (a client whose MCP entry and hooks
 * share a file gets one write and one backup of the original).
 */
export class FileEdits {
  private readonly files = new Map<
    string,
    { original: string | undefined; text: string | undefined; bom: boolean; mode?: number; remove?: boolean }
  >();

  /** The file's text after any byte order mark, which the edits never see and the write puts back. */
  async read(path: string): Promise<string | undefined> {
    if (!this.files.has(path)) {
      const raw = await readText(path);
      const text = withoutBom(raw);
      this.files.set(path, { original: text, text, bom: raw !== text });
    }
    return this.files.get(path)!.text;
  }

  set(path: string, text: string): void {
    this.files.get(path)!.text = text;
  }

  /** The file holds the API key: it is written (or, unchanged, set) owner-only. */
  secret(path: string): void {
    this.files.get(path)!.mode = SECRET_MODE;
  }

  /** Files whose text differs from what was read, or that are to be removed. */
  changed(): string[] {
    return [...this.files].filter(([, f]) => f.remove || f.text !== f.original).map(([p]) => p);
  }

  /** Every file read, changed or not. */
  paths(): string[] {
    return [...this.files.keys()];
  }

  /**
   * After undo: a file setup created (it had no backup, so nothing was there before) that now holds
   * nothing but empty objects, or nothing at all, is removed rather than left behind.
   */
  async removeCreated(parse: (path: string, text: string) => unknown): Promise<void> {
    for (const [path, f] of this.files) {
      if (f.text === undefined || f.text === f.original || (await exists(backupPath(path)))) continue;
      const value = withoutEmpty(parse(path, f.text));
      if (f.text.trim() === '' || (value !== null && typeof value === 'object' && Object.keys(value).length === 0))
        f.remove = true;
    }
  }

  /**
   * Where removing Axle's entries left a file equal in content to its backup (the file before setup
   * first changed it), the backup's exact bytes are written back instead, so an undo that follows no
   * other edit restores the file byte for byte, and with its mode. Empty objects do not count: setup may have had to
   * create the one that held its entry.
   */
  async preferBackups(parse: (path: string, text: string) => unknown): Promise<void> {
    for (const [path, f] of this.files) {
      if (f.text === undefined || f.text === f.original) continue;
      const backup = withoutBom(await readText(backupPath(path)));
      if (
        backup !== undefined &&
        (backup === f.text || sameJson(withoutEmpty(parse(path, backup)), withoutEmpty(parse(path, f.text))))
      ) {
        f.text = backup;
        f.mode = (await stat(backupPath(path))).mode & 0o777; // the mode it had, too
      }
    }
  }

  /** Writes the changed files in turn; one that cannot be written (a full disk) ends it, naming what was done. */
  async commit(): Promise<void> {
    const written: string[] = [];
    for (const [path, f] of this.files) {
      try {
        // A link into a dotfiles folder stays, as it was before setup; the file setup created behind it goes.
        if (f.remove) await rm(await resolveLinks(path), { force: true });
        else if (f.text !== undefined && f.text !== f.original)
          await writeAtomic(path, f.bom ? BOM + f.text : f.text, {
            backup: f.original !== undefined,
            mode: SECRET_MODE,
            ...(f.mode !== undefined && { forceMode: f.mode }),
          });
        else {
          if (f.mode === SECRET_MODE && f.text !== undefined && ((await stat(path)).mode & 0o077) !== 0)
            await chmod(path, SECRET_MODE);
          continue;
        }
        written.push(path);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        const before = written.length > 0 ? ` Done before it: ${written.join(', ')}.` : '';
        return fail(`Could not write ${path} (${code}); it is as it was.${before}`, EXIT.FAILED);
      }
    }
  }
}

/**
 * A client's file as text, or why it cannot be read (a folder where the file should be, a file another user owns
 * after a `sudo` run) or must not be written (read-only): such a file is reported and left alone like one that does
 * not parse, and the others go on.
 */
async function readOrProblem(
  edits: FileEdits,
  path: string,
): Promise<{ text: string | undefined } | { status: 'corrupt' | 'conflict'; problem: string }> {
  let text: string | undefined;
  try {
    text = await edits.read(path);
  } catch (err) {
    return { status: 'corrupt', problem: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  // Made read-only on purpose (a managed or pinned config): left alone, as an editor would without being forced.
  if (text !== undefined && ((await stat(path)).mode & 0o200) === 0)
    return { status: 'conflict', problem: 'is read-only' };
  return { text };
}

/** Owner read and write only: the mode of a file holding the API key. */
const SECRET_MODE = 0o600;

/** The value with every property holding an empty object left out, at any depth. */
function withoutEmpty(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const pruned = withoutEmpty(x);
    if (!(pruned && typeof pruned === 'object' && !Array.isArray(pruned) && Object.keys(pruned).length === 0))
      out[k] = pruned;
  }
  return out;
}

export async function isInstalled(def: ClientDef): Promise<boolean> {
  for (const m of def.markers()) if (await exists(m)) return true;
  return false;
}

/** The entry registered under Axle's name, whoever wrote it; undefined when absent or unreadable. */
export function registeredEntry(def: ClientDef, text: string): unknown {
  if (def.format === 'toml') return readToml(text, SERVER_NAME);
  if (def.format === 'json5') return readJson5(text, [...def.container, SERVER_NAME]);
  const parsed = parseJsonc(text);
  return parsed.ok ? valueAt(parsed.root, [...def.container, SERVER_NAME]) : undefined;
}

function statusOf(outcome: EditOutcome, before: unknown, removing = false): ChangeStatus {
  if (outcome.kind === 'corrupt' || outcome.kind === 'conflict') return outcome.kind;
  if (outcome.kind === 'unchanged') return removing ? 'absent' : 'unchanged';
  return removing ? 'removed' : before === undefined ? 'added' : 'updated';
}

/** Registers (or refreshes) Axle's MCP server in one client's config. */
export async function register(
  edits: FileEdits,
  def: ClientDef,
  entry: McpEntry,
): Promise<{ status: ChangeStatus; problem?: string }> {
  const path = def.config();
  const read = await readOrProblem(edits, path);
  if (!('text' in read)) return read;
  const { text } = read;
  const value = def.entry(entry);
  const outcome =
    def.format === 'toml'
      ? upsertToml(text, SERVER_NAME, entry)
      : def.format === 'json5'
        ? upsertJson5(text, def.container, SERVER_NAME, value)
        : upsertJsonc(text, def.container, SERVER_NAME, value, (v) => sameJson(v, value));
  const before = text === undefined ? undefined : registeredEntry(def, text);
  if (outcome.kind === 'changed') edits.set(path, outcome.text);
  if (outcome.kind === 'changed' || outcome.kind === 'unchanged') edits.secret(path);
  return { status: statusOf(outcome, before), ...('reason' in outcome && { problem: outcome.reason }) };
}

export async function unregister(
  edits: FileEdits,
  def: ClientDef,
): Promise<{ status: ChangeStatus; problem?: string }> {
  const path = def.config();
  const read = await readOrProblem(edits, path);
  if (!('text' in read)) return read;
  const { text } = read;
  if (text === undefined) return { status: 'absent' };
  const outcome =
    def.format === 'toml'
      ? removeToml(text)
      : def.format === 'json5'
        ? removeJson5(text)
        : removeJsonc(text, def.container, SERVER_NAME, isAxleEntry);
  if (outcome.kind === 'changed') edits.set(path, outcome.text);
  return { status: statusOf(outcome, undefined, true), ...('reason' in outcome && { problem: outcome.reason }) };
}

export async function hook(
  edits: FileEdits,
  def: ClientDef,
  group: HookGroup,
): Promise<{ status: ChangeStatus; problem?: string }> {
  if (!def.hooks) return { status: 'absent' };
  const path = def.hooks.file();
  const read = await readOrProblem(edits, path);
  if (!('text' in read)) return read;
  const { text } = read;
  const outcome = installHooks(text, def.hooks.events, group);
  if (outcome.kind === 'changed') edits.set(path, outcome.text);
  return { status: statusOf(outcome, undefined), ...('reason' in outcome && { problem: outcome.reason }) };
}

export async function unhook(edits: FileEdits, def: ClientDef): Promise<{ status: ChangeStatus; problem?: string }> {
  if (!def.hooks) return { status: 'absent' };
  const path = def.hooks.file();
  const read = await readOrProblem(edits, path);
  if (!('text' in read)) return read;
  const { text } = read;
  if (text === undefined) return { status: 'absent' };
  const outcome = removeHooks(text, def.hooks.events);
  if (outcome.kind === 'changed') edits.set(path, outcome.text);
  return { status: statusOf(outcome, undefined, true), ...('reason' in outcome && { problem: outcome.reason }) };
}
