import { homedir } from 'node:os';
import { join } from 'node:path';
import type { McpEntry } from './entry.js';
import { appDataDir, claudeDir, claudeJson, codexDir, openclawDir, vscodeUserDir, zedDir } from './locations.js';

/**
 * Capture tiers (SPEC): Supported clients fire a session-end hook that hands over the transcript;
 * Best-effort ones are read from their local session files by the daemon; Probabilistic ones have no
 * capture path, and their agent volunteers learnings through the contribute tool.
 */
export type Tier = 'Supported' | 'Best-effort' | 'Probabilistic';

export type ClientId =
  | 'claude-code'
  | 'claude-desktop'
  | 'cursor'
  | 'vscode'
  | 'windsurf'
  | 'codex'
  | 'gemini-cli'
  | 'cline'
  | 'zed'
  | 'openclaw';

export interface ClientDef {
  id: ClientId;
  name: string;
  tier: Tier;
  /** Any of these existing means the client is installed. */
  markers(): string[];
  config(): string;
  format: 'json' | 'toml' | 'json5';
  /** Where servers live in the file (`mcpServers`, `servers`, `context_servers`, `mcp.servers`). */
  container: string[];
  /** The client's own shape of a stdio server entry. */
  entry(e: McpEntry): unknown;
  /** Session-end hooks that hand the transcript to axle-hook, for clients that have them. */
  hooks?: { file(): string; events: string[] };
  /** What the person must still do in the client before the registered server runs (setup's final table). */
  afterSetup?: string;
}

const plain = (e: McpEntry) => ({ command: e.command, args: e.args, env: e.env });
const stdio = (e: McpEntry) => ({ type: 'stdio', command: e.command, args: e.args, env: e.env });
const home = (...p: string[]) => join(homedir(), ...p);
const clineDir = () => join(vscodeUserDir(), 'globalStorage', 'saoudrizwan.claude-dev');

export const CLIENTS: ClientDef[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    tier: 'Supported',
    markers: () => [claudeJson(), claudeDir()],
    config: () => claudeJson(),
    format: 'json',
    container: ['mcpServers'],
    entry: stdio,
    // SessionEnd hands over the transcript; PreCompact is the backstop for sessions whose end is missed.
    hooks: { file: () => join(claudeDir(), 'settings.json'), events: ['SessionEnd', 'PreCompact'] },
  },
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    tier: 'Probabilistic',
    markers: () => [join(appDataDir(), 'Claude')],
    config: () => join(appDataDir(), 'Claude', 'claude_desktop_config.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: plain,
  },
  {
    id: 'cursor',
    name: 'Cursor',
    tier: 'Probabilistic',
    markers: () => [home('.cursor')],
    config: () => home('.cursor', 'mcp.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: plain,
  },
  {
    id: 'vscode',
    name: 'VS Code',
    tier: 'Probabilistic',
    markers: () => [vscodeUserDir()],
    config: () => join(vscodeUserDir(), 'mcp.json'),
    format: 'json',
    container: ['servers'],
    entry: stdio,
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    tier: 'Probabilistic',
    markers: () => [home('.codeium', 'windsurf')],
    config: () => home('.codeium', 'windsurf', 'mcp_config.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: plain,
  },
  {
    id: 'codex',
    name: 'Codex CLI',
    tier: 'Probabilistic',
    markers: () => [codexDir()],
    config: () => join(codexDir(), 'config.toml'),
    format: 'toml',
    container: ['mcp_servers'],
    entry: plain,
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    tier: 'Supported',
    markers: () => [home('.gemini')],
    config: () => home('.gemini', 'settings.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: plain,
    hooks: { file: () => home('.gemini', 'settings.json'), events: ['SessionEnd'] },
    // With folder trust on, Gemini CLI lists MCP servers as "Disabled" in a folder it does not trust.
    afterSetup: 'shows "Disabled" until you trust the folder (Gemini asks when it starts there)',
  },
  {
    id: 'cline',
    name: 'Cline',
    tier: 'Probabilistic',
    markers: () => [clineDir()],
    config: () => join(clineDir(), 'settings', 'cline_mcp_settings.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: plain,
  },
  {
    id: 'zed',
    name: 'Zed',
    tier: 'Probabilistic',
    markers: () => [zedDir()],
    config: () => join(zedDir(), 'settings.json'),
    format: 'json',
    container: ['context_servers'],
    entry: plain,
  },
  {
    id: 'openclaw',
    name: 'OpenClaw',
    tier: 'Best-effort',
    markers: () => [openclawDir()],
    config: () => join(openclawDir(), 'openclaw.json'),
    format: 'json5',
    container: ['mcp', 'servers'],
    entry: plain,
  },
];

/** The name setup registers Axle's server under in every client. */
export const SERVER_NAME = 'axle';
