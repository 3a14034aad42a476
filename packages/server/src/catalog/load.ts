// Loads the skills catalog: the bundled file, or the operator's AXLE_CATALOG file. Any problem
// throws an Error that names the file, the entry (index and id) and the field, so a bad catalog
// stops the server with a message an operator can act on.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Skill, SkillCatalog } from '@axle/sdk';

/** Same relative path from src/catalog and dist/catalog. */
export const BUNDLED_CATALOG = fileURLToPath(new URL('../../catalog/skills.json', import.meta.url));

function entryLabel(data: unknown, index: number): string {
  const entry = Array.isArray(data) ? data[index] : undefined;
  const id =
    entry !== null && typeof entry === 'object' && typeof (entry as { id?: unknown }).id === 'string'
      ? ` (id "${(entry as { id: string }).id}")`
      : '';
  return `entry ${index}${id}`;
}

/** Validates parsed catalog JSON; `label` prefixes every error message. */
export function parseCatalog(data: unknown, label: string): Skill[] {
  if (!Array.isArray(data)) throw new Error(`${label}: expected a JSON array of skills`);
  const parsed = SkillCatalog.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [index, ...field] = issue.path;
    const where = typeof index === 'number' ? `${entryLabel(data, index)}: ` : '';
    const path = field.length > 0 ? `${field.join('.')}: ` : '';
    throw new Error(`${label}: ${where}${path}${issue.message}`);
  }
  const seen = new Map<string, number>();
  for (const [i, skill] of parsed.data.entries()) {
    const first = seen.get(skill.id);
    if (first !== undefined) throw new Error(`${label}: entry ${i}: id "${skill.id}" duplicates entry ${first}`);
    seen.set(skill.id, i);
  }
  return parsed.data;
}

/** The catalog file's bytes and the label its errors are prefixed with; the bundled catalog when `path` is unset. */
/** The catalog file to read (the bundled one when `path` is unset) and how errors name it. */
function catalogSource(path?: string): { file: string; label: string } {
  const file = path ?? BUNDLED_CATALOG;
  return { file, label: path === undefined ? `bundled catalog ${file}` : `AXLE_CATALOG ${file}` };
}

const unreadable = (label: string, err: unknown) =>
  new Error(`${label}: cannot read file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);

export function readCatalogFile(path?: string): { bytes: Buffer; label: string } {
  const { file, label } = catalogSource(path);
  try {
    return { bytes: readFileSync(file), label };
  } catch (err) {
    throw unreadable(label, err);
  }
}

/**
 * The catalog file's bytes in chunks of 1 MB (one buffer, reused): hashing an unchanged catalog this way
 * allocates no copy of the whole file.
 */
export function* catalogFileChunks(path?: string): Generator<Uint8Array> {
  const { file, label } = catalogSource(path);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw unreadable(label, err);
  }
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) yield chunk.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Parses and validates the bytes `readCatalogFile` returned. */
export function parseCatalogFile({ bytes, label }: { bytes: Buffer; label: string }): Skill[] {
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new Error(`${label}: invalid JSON (${(err as Error).message})`);
  }
  return parseCatalog(data, label);
}

/** `path` is the operator's AXLE_CATALOG file; without it the bundled catalog is loaded. */
export function loadCatalog(path?: string): Skill[] {
  return parseCatalogFile(readCatalogFile(path));
}
