import { parse, TomlError } from 'smol-toml';
import { type EditOutcome, sameJson } from './edit.js';
import type { McpEntry } from './entry.js';

const BEGIN = '# axle:begin (written by `axle setup`; `axle setup --undo` removes it)';
const END = '# axle:end';
/** Axle's block with the blank line setup put before it, so removing it restores the file byte for byte. */
const BLOCK = /(?:\n(?=# axle:begin))?# axle:begin[^\n]*\n[\s\S]*?# axle:end\n?/;

const str = (s: string) => JSON.stringify(s);

/** Codex CLI's `[mcp_servers.<name>]` tables for the entry, between marker comments. */
export function tomlBlock(name: string, entry: McpEntry): string {
  const env = Object.entries(entry.env).map(([k, v]) => `${k} = ${str(v)}\n`);
  return [
    `${BEGIN}\n`,
    `[mcp_servers.${name}]\n`,
    `command = ${str(entry.command)}\n`,
    `args = [${entry.args.map(str).join(', ')}]\n`,
    `\n[mcp_servers.${name}.env]\n`,
    ...env,
    `${END}\n`,
  ].join('');
}

function parseToml(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  try {
    return { ok: true, value: parse(text) as Record<string, unknown> };
  } catch (err) {
    const e = err as TomlError;
    return { ok: false, reason: e instanceof TomlError ? `invalid TOML at line ${e.line}` : 'invalid TOML' };
  }
}

const serverIn = (doc: Record<string, unknown>, name: string) =>
  (doc.mcp_servers as Record<string, unknown> | undefined)?.[name];

/**
 * Adds or refreshes Axle's marked block at the end of the file. Nothing outside the block changes;
 * an `[mcp_servers.<name>]` table outside the markers is the person's own and is left alone.
 */
export function upsertToml(text: string | undefined, name: string, entry: McpEntry): EditOutcome {
  const source = text ?? '';
  const parsed = parseToml(source);
  if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
  const block = tomlBlock(name, entry);
  const existing = BLOCK.exec(source);
  let next: string;
  if (existing) {
    const current = existing[0].replace(/^\n/, '');
    if (current === block) return { kind: 'unchanged' };
    next =
      source.slice(0, existing.index) +
      existing[0].replace(current, block) +
      source.slice(existing.index + existing[0].length);
  } else {
    if (serverIn(parsed.value, name) !== undefined)
      return { kind: 'conflict', reason: `[mcp_servers.${name}] exists and was not written by axle setup` };
    // One line break: a blank line after a last line that had its own, just the break after one that had none; either
    // way it is the one removal takes with the block.
    const sep = source === '' ? '' : '\n';
    next = `${source}${sep}${block}`;
  }
  const check = parseToml(next);
  if (
    !check.ok ||
    !sameJson(serverIn(check.value, name), { command: entry.command, args: entry.args, env: entry.env })
  ) {
    return { kind: 'conflict', reason: 'the file is laid out so that a table cannot be appended safely' };
  }
  return { kind: 'changed', text: next };
}

/** Removes Axle's marked block (and the blank line before it); the rest stays byte-identical. */
export function removeToml(text: string): EditOutcome {
  const parsed = parseToml(text);
  if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
  const existing = BLOCK.exec(text);
  if (!existing) return { kind: 'unchanged' };
  return { kind: 'changed', text: text.slice(0, existing.index) + text.slice(existing.index + existing[0].length) };
}

/** The entry inside Axle's block, as a client would read it. */
export function readToml(text: string, name: string): unknown {
  const parsed = parseToml(text);
  return parsed.ok ? serverIn(parsed.value, name) : undefined;
}
