import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDataDir, claudeDir, claudeJson, codexDir, vscodeUserDir, zedDir } from '../src/clients/locations.js';

const home = homedir();

describe('client config locations on each platform', () => {
  it('application data: XDG on Linux, Application Support on macOS, %APPDATA% on Windows', () => {
    expect(appDataDir({}, 'linux')).toBe(join(home, '.config'));
    expect(appDataDir({ XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg');
    expect(appDataDir({}, 'darwin')).toBe(join(home, 'Library', 'Application Support'));
    expect(appDataDir({ APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32')).toBe('C:\\Users\\me\\AppData\\Roaming');
    expect(appDataDir({}, 'win32')).toBe(join(home, 'AppData', 'Roaming'));
  });

  it('VS Code (and Cline inside it) and Zed follow the platform', () => {
    expect(vscodeUserDir({}, 'linux')).toBe(join(home, '.config', 'Code', 'User'));
    expect(vscodeUserDir({}, 'darwin')).toBe(join(home, 'Library', 'Application Support', 'Code', 'User'));
    expect(vscodeUserDir({ APPDATA: '/appdata' }, 'win32')).toBe(join('/appdata', 'Code', 'User'));
    expect(zedDir({}, 'linux')).toBe(join(home, '.config', 'zed'));
    expect(zedDir({}, 'darwin')).toBe(join(home, '.config', 'zed'));
    expect(zedDir({ APPDATA: '/appdata' }, 'win32')).toBe(join('/appdata', 'Zed'));
  });

  it('Claude Code honours CLAUDE_CONFIG_DIR and Codex honours CODEX_HOME', () => {
    expect(claudeJson({})).toBe(join(home, '.claude.json'));
    expect(claudeDir({})).toBe(join(home, '.claude'));
    expect(claudeJson({ CLAUDE_CONFIG_DIR: '/cc' })).toBe(join('/cc', '.claude.json'));
    expect(claudeDir({ CLAUDE_CONFIG_DIR: '/cc' })).toBe('/cc');
    expect(codexDir({})).toBe(join(home, '.codex'));
    expect(codexDir({ CODEX_HOME: '/codex' })).toBe('/codex');
  });
});
