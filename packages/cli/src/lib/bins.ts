import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));

/** The session-end hook script that client hooks run. */
export const hookScript = () => here('../../bin/axle-hook.js');
/** The `axle` entry point (the daemon is started through it). */
export const cliScript = () => here('../../bin/run.js');

/** Walks up from a file to the folder holding the package.json named `name`. */
function packageRoot(from: string, name: string): string {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === name) return dir;
    } catch {
      // no package.json here: keep walking up
    }
  }
  throw new Error(`cannot find the ${name} package`);
}

/** The axle-mcp script of the installed @axle/mcp, as its package.json declares it. */
export function mcpScript(): string {
  const root = packageRoot(createRequire(import.meta.url).resolve('@axle/mcp'), '@axle/mcp');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return resolve(root, pkg.bin['axle-mcp']!);
}

/**
 * One word of a command line a client hands to a shell: in single quotes for a POSIX shell, where double quotes would
 * still expand `$`, backticks and `\` in a path; in double quotes on Windows, which forbids `"` in paths.
 */
export const shellWord = (word: string, platform: NodeJS.Platform = process.platform) =>
  platform === 'win32' ? `"${word}"` : `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * A command line that runs a script with this Node binary. Clients start servers and hooks with a
 * reduced PATH (GUI apps on macOS get none of the shell's), so absolute paths are used, not `npx`.
 */
export const nodeCommand = (script: string, ...args: string[]) =>
  [process.execPath, script, ...args].map((p) => shellWord(p)).join(' ');

/** The absolute paths in a command line nodeCommand wrote (or, before, one it double-quoted): node and the script. */
export const commandPaths = (command: string) =>
  [...command.matchAll(/'((?:[^']|'\\'')*)'|"([^"]+)"/g)]
    .map((m) => m[1]?.replaceAll(`'\\''`, "'") ?? m[2]!)
    .filter((p) => isAbsolute(p));
