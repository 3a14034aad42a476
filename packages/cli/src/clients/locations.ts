import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where per-user application settings live on this platform (XDG on Linux, Application Support, %APPDATA%). */
export function appDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support');
  if (platform === 'win32') return env.APPDATA ?? join(homedir(), 'AppData', 'Roaming');
  return env.XDG_CONFIG_HOME || join(homedir(), '.config');
}

/** Claude Code's folder: CLAUDE_CONFIG_DIR, else `~/.claude`. */
export const claudeDir = (env = process.env) => env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude');

/** Claude Code's MCP settings: `~/.claude.json`, or `.claude.json` inside CLAUDE_CONFIG_DIR when set. */
export const claudeJson = (env = process.env) =>
  env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : join(homedir(), '.claude.json');

/** Claude Code's session transcripts (one JSONL file per session, per project folder). */
export const claudeProjects = (env = process.env) => join(claudeDir(env), 'projects');

export const vscodeUserDir = (env = process.env, platform = process.platform) =>
  join(appDataDir(env, platform), 'Code', 'User');

/** Zed keeps its settings under ~/.config/zed on Linux and macOS, %APPDATA%\Zed on Windows. */
export function zedDir(env = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(appDataDir(env, platform), 'Zed');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'zed');
}

export const codexDir = (env = process.env) => env.CODEX_HOME || join(homedir(), '.codex');

/** OpenClaw's home and its default workspace (MEMORY.md, memory/) for the best-effort daemon. */
export const openclawDir = () => join(homedir(), '.openclaw');
export const openclawWorkspace = () => join(openclawDir(), 'workspace');
