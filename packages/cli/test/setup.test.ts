import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_FILES, readHome, writeClientFiles } from './fixtures.js';
import {
  axle,
  axleApprovingDevice,
  HOOK_BIN,
  mintKey,
  type ServerProcess,
  type Smtp,
  startMailedServer,
  tempHome,
  writeAxleConfig,
} from './helpers.js';

const MCP_BIN = path.resolve(
  path.dirname(HOOK_BIN),
  '../../mcp',
  JSON.parse(fs.readFileSync(new URL('../../mcp/package.json', import.meta.url), 'utf8')).bin['axle-mcp'],
);
const NODE = process.execPath;
const hookCommand = (client: string) => `'${NODE}' '${HOOK_BIN}' '${client}'`;

/** Axle's entry as setup writes it into a JSON file, `depth` levels deep with indentation `unit`. */
function entryJson(key: string, url: string, unit: string, depth: number, type: boolean): string {
  const value = {
    ...(type && { type: 'stdio' }),
    command: NODE,
    args: [MCP_BIN],
    env: { SVC_API_KEY: key, SVC_BASE_URL: url },
  };
  return `"axle": ${JSON.stringify(value, null, unit).replace(/\n/g, `\n${unit.repeat(depth)}`)}`;
}

function hookGroup(client: string, unit: string, depth: number): string {
  return JSON.stringify({ hooks: [{ type: 'command', command: hookCommand(client) }] }, null, unit).replace(
    /\n/g,
    `\n${unit.repeat(depth)}`,
  );
}

/** Every client's file after setup, exactly (the Claude Code and Gemini CLI hooks only with capture on). */
function expectedFiles(key: string, url: string, capture: boolean): Record<string, string> {
  const e = (unit: string, depth: number, type = false) => entryJson(key, url, unit, depth, type);
  return {
    'claude-code': `{
  "numStartups": 12,
  "mcpServers": {
    ${e('  ', 2, true)},
    "github": {
      "type": "stdio",
      "command": "gh-mcp",
      "args": []
    }
  },
  "projects": {}
}
`,
    'claude-code-settings': capture
      ? `{
  "model": "opus",
  "hooks": {
    "PreCompact": [
      ${hookGroup('claude-code', '  ', 3)}
    ],
    "SessionEnd": [
      ${hookGroup('claude-code', '  ', 3)}
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  }
}
`
      : CLIENT_FILES['claude-code-settings']!.text,
    'claude-desktop': `{\n  "mcpServers": {\n    ${e('  ', 2)}\n  }\n}\n`,
    cursor: `{
  "mcpServers": {
    ${e('  ', 2)},
    "other": {
      "command": "other-mcp"
    }
  }
}
`,
    vscode: `// servers for every workspace
{
\t"servers": {
\t\t${e('\t', 2, true)},
\t\t// the file system server
\t\t"fs": {
\t\t\t"type": "stdio",
\t\t\t"command": "fs-mcp"
\t\t}
\t},
\t"inputs": []
}
`,
    windsurf: `{\n  "mcpServers": {\n    ${e('  ', 2)}\n  }\n}\n`,
    codex: `${CLIENT_FILES.codex!.text}
# axle:begin (written by \`axle setup\`; \`axle setup --undo\` removes it)
[mcp_servers.axle]
command = ${JSON.stringify(NODE)}
args = [${JSON.stringify(MCP_BIN)}]

[mcp_servers.axle.env]
SVC_API_KEY = "${key}"
SVC_BASE_URL = "${url}"
# axle:end
`,
    'gemini-cli': capture
      ? `{
  "hooks": {
    "SessionEnd": [
      ${hookGroup('gemini-cli', '  ', 3)}
    ]
  },
  "mcpServers": {
    ${e('  ', 2)}
  },
  "theme": "GitHub"
}
`
      : `{
  "mcpServers": {
    ${e('  ', 2)}
  },
  "theme": "GitHub"
}
`,
    cline: `{\n  "mcpServers": {\n    ${e('  ', 2)}\n  }\n}\n`,
    zed: `// Zed settings
{
  "theme": "One Dark", // the dark one
  "context_servers": {
    ${e('  ', 2)},
    /* a local server */
    "notes": { "command": "notes-mcp", "args": [] }
  }
}
`,
    openclaw: `// OpenClaw configuration (JSON5)
{
  agent: { model: 'anthropic/claude-sonnet' },
  mcp: {
    servers: {
      /* axle:begin (written by \`axle setup\`; \`axle setup --undo\` removes it) */
      ${e('  ', 3)},
      /* axle:end */
      local: { command: 'local-mcp', args: ['--stdio'], },
    },
  },
}
`,
  };
}

function expectFiles(home: string, expected: Record<string, string>): void {
  for (const [id, text] of Object.entries(expected)) expect(readHome(home, CLIENT_FILES[id]!.file), id).toBe(text);
}

/** Whether the account holding `key` has extraction consent on record. */
async function consentOf(server: string, key: { api_key: string }): Promise<boolean> {
  const res = await fetch(`${server}/account/settings`, { headers: { 'x-api-key': key.api_key } });
  return ((await res.json()) as { consent_granted: boolean }).consent_granted;
}

const snapshot = (home: string) =>
  Object.fromEntries(Object.entries(CLIENT_FILES).map(([id, f]) => [id, readHome(home, f.file)]));

describe('axle setup', () => {
  let smtp: Smtp;
  let server: ServerProcess;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ smtp, server, stop } = await startMailedServer());
  });
  afterAll(() => stop?.());

  it('signs in by device code, registers axle in all ten clients, changes nothing the second time, and undoes it all', async () => {
    const home = tempHome();
    writeClientFiles(home);
    const first = await axleApprovingDevice(['setup', '--server', server.url, '--yes', '--no-browser'], {
      home,
      server: server.url,
      smtp,
      email: 'setup@example.com',
    });
    // The code, the link that carries it, and the wait with its time (a pipe gets the line, not a \r update).
    const code = /Your sign-in code: ([A-Z]{4}-[A-Z]{4})\n/.exec(first.stderr)?.[1];
    expect(first.stderr).toContain(`Open ${server.url}/device?user_code=${code} and check that it shows this code.\n`);
    expect(first.stderr).toContain('waiting for approval… 0:00 (Ctrl-C to stop)\n');
    expect(first.stderr).not.toContain('opened in your browser');
    expect(first.code, first.stderr).toBe(0);
    const config = JSON.parse(readHome(home, '.axle/config.json'));
    expect(config).toEqual({
      server: server.url,
      api_key: expect.stringMatching(/^axl_/),
      account_id: expect.stringMatching(/^acc_/),
      email: 'setup@example.com',
    });
    expect(fs.statSync(path.join(home, '.axle/config.json')).mode & 0o777).toBe(0o600);
    expectFiles(home, expectedFiles(config.api_key, server.url, false));
    // Every client file that now holds the key is owner-only (they were 644); the backups, without it, keep 644.
    for (const [id, f] of Object.entries(CLIENT_FILES)) {
      const holdsKey = readHome(home, f.file).includes(config.api_key);
      expect(holdsKey, id).toBe(id !== 'claude-code-settings');
      if (holdsKey) expect(fs.statSync(path.join(home, f.file)).mode & 0o777, id).toBe(0o600);
    }
    expect(fs.statSync(path.join(home, `${CLIENT_FILES.cursor!.file}.axle-backup`)).mode & 0o777).toBe(0o644);
    // The final table names every client with its tier and what changed.
    for (const [name, tier] of [
      ['Claude Code', 'Supported'],
      ['Gemini CLI', 'Supported'],
      ['OpenClaw', 'Best-effort'],
      ['Zed', 'Probabilistic'],
    ]) {
      expect(first.stdout).toMatch(new RegExp(`${name} +${tier} .*registered axle`));
    }
    expect(first.stdout).toMatch(/Gemini CLI .*registered axle; shows "Disabled" until you trust the folder/);
    expect(first.stdout).toContain('Background extraction: off');
    // Backups hold the files as they were.
    expect(readHome(home, `${CLIENT_FILES.cursor!.file}.axle-backup`)).toBe(CLIENT_FILES.cursor!.text);

    const before = snapshot(home);
    const second = await axle(['setup', '--yes', '--json'], { home });
    expect(second.code, second.stderr).toBe(0);
    const report = JSON.parse(second.stdout);
    expect(report.files_changed).toEqual([]);
    expect(report.clients.map((c: { mcp: string }) => c.mcp)).toEqual(Array(10).fill('unchanged'));
    expect(snapshot(home)).toEqual(before);

    // Only --enable-extraction turns capture on: consent on the server, hooks for the Supported clients.
    const enable = await axle(['setup', '--yes', '--enable-extraction', '--json'], { home });
    expect(enable.code, enable.stderr).toBe(0);
    expect(JSON.parse(enable.stdout).capture).toBe(true);
    expectFiles(home, expectedFiles(config.api_key, server.url, true));
    const settings = await (
      await fetch(`${server.url}/account/settings`, { headers: { 'x-api-key': config.api_key } })
    ).json();
    expect(settings.consent_granted).toBe(true);
    expect(JSON.parse(readHome(home, '.axle/config.json')).capture).toEqual({
      enabled: true,
      since: expect.any(String),
    });
    const withHooks = snapshot(home);
    const again = await axle(['setup', '--yes', '--json'], { home });
    expect(JSON.parse(again.stdout).files_changed).toEqual([]);
    expect(snapshot(home)).toEqual(withHooks);

    // Capture ran once: the hook left logs and a queue in ~/.axle.
    fs.mkdirSync(path.join(home, '.axle/logs'), { recursive: true });
    fs.writeFileSync(path.join(home, '.axle/logs/hook.log'), '{}\n');
    fs.mkdirSync(path.join(home, '.axle/queue/pending'), { recursive: true });
    fs.writeFileSync(path.join(home, '.axle/queue/sessions.jsonl'), '');
    const undo = await axle(['setup', '--undo', '--json'], { home });
    expect(undo.code, undo.stderr).toBe(0);
    for (const [id, f] of Object.entries(CLIENT_FILES)) {
      expect(readHome(home, f.file), id).toBe(f.text);
      expect(fs.statSync(path.join(home, f.file)).mode & 0o777, id).toBe(0o644);
      expect(fs.existsSync(path.join(home, `${f.file}.axle-backup`)), id).toBe(false);
    }
    expect(fs.existsSync(path.join(home, '.axle'))).toBe(false);
    const undone = JSON.parse(undo.stdout);
    expect(undone).toMatchObject({ key_revoked: true, consent_revoked: false, drafts_kept: [] });
    // The key is dead on the server; consent stays (no terminal to say yes to revoking it).
    expect((await fetch(`${server.url}/account/settings`, { headers: { 'x-api-key': config.api_key } })).status).toBe(
      401,
    );
    expect(await consentOf(server.url, await mintKey(server.url, smtp, 'setup@example.com'))).toBe(true);
  }, 60_000);

  it('undo removes a file setup created, revokes the key and, asked to, consent; drafts stay', async () => {
    const home = tempHome();
    fs.mkdirSync(path.join(home, '.codeium/windsurf'), { recursive: true }); // Windsurf installed, no config yet
    const key = await mintKey(server.url, smtp, 'undo@example.com');
    writeAxleConfig(home, { server: server.url, api_key: key.api_key });
    const setup = await axle(['setup', '--yes', '--enable-extraction', '--json'], { home });
    expect(setup.code, setup.stderr).toBe(0);
    const created = path.join(home, CLIENT_FILES.windsurf!.file);
    expect(fs.statSync(created).mode & 0o777).toBe(0o600);
    expect(await consentOf(server.url, key)).toBe(true);
    fs.mkdirSync(path.join(home, '.axle/queue/pending'), { recursive: true });
    fs.writeFileSync(path.join(home, '.axle/queue/pending/d1.json'), '{}');

    const dry = await axle(['setup', '--undo', '--dry-run', '--json'], { home });
    expect(JSON.parse(dry.stdout).files_removed).toContain(path.join(home, '.axle/config.json'));
    expect(fs.existsSync(created)).toBe(true);
    expect(await consentOf(server.url, key)).toBe(true);

    const undo = await axle(['setup', '--undo', '--revoke-consent', '--json'], { home });
    expect(undo.code, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ key_revoked: true, consent_revoked: true });
    expect(fs.existsSync(created)).toBe(false);
    expect(fs.readdirSync(path.join(home, '.codeium/windsurf'))).toEqual([]);
    expect(fs.readdirSync(path.join(home, '.axle'))).toEqual(['queue']);
    expect(fs.readdirSync(path.join(home, '.axle/queue/pending'))).toEqual(['d1.json']);
    expect((await fetch(`${server.url}/account/settings`, { headers: { 'x-api-key': key.api_key } })).status).toBe(401);
    expect(await consentOf(server.url, await mintKey(server.url, smtp, 'undo@example.com'))).toBe(false);
  }, 60_000);

  it('reports a corrupt client config and leaves it untouched, registering the others (exit 5)', async () => {
    const home = tempHome();
    writeClientFiles(home);
    const key = await mintKey(server.url, smtp, 'corrupt@example.com');
    writeAxleConfig(home, { server: server.url, api_key: key.api_key, email: 'corrupt@example.com' });
    const broken = '{ "mcpServers": { "other": { "command": "x" }\n';
    fs.writeFileSync(path.join(home, CLIENT_FILES.cursor!.file), broken);
    const brokenToml = 'model = "o4\n';
    fs.writeFileSync(path.join(home, CLIENT_FILES.codex!.file), brokenToml);
    const r = await axle(['setup', '--yes', '--json'], { home });
    expect(r.code).toBe(5);
    const report = JSON.parse(r.stdout);
    const byId = Object.fromEntries(report.clients.map((c: { id: string }) => [c.id, c]));
    expect(byId.cursor).toMatchObject({ mcp: 'corrupt', problem: expect.stringMatching(/line 2/) });
    expect(byId.codex).toMatchObject({ mcp: 'corrupt', problem: expect.stringMatching(/invalid TOML/) });
    expect(readHome(home, CLIENT_FILES.cursor!.file)).toBe(broken);
    expect(readHome(home, CLIENT_FILES.codex!.file)).toBe(brokenToml);
    expect(fs.existsSync(path.join(home, `${CLIENT_FILES.cursor!.file}.axle-backup`))).toBe(false);
    expect(byId.zed.mcp).toBe('added');
    expect(readHome(home, CLIENT_FILES.zed!.file)).toContain('"SVC_API_KEY"');
  });

  it('--dry-run writes nothing and does not sign in', async () => {
    const home = tempHome();
    writeClientFiles(home);
    const r = await axle(['setup', '--server', server.url, '--dry-run', '--json'], { home });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ dry_run: true, signed_in: false, capture: false });
    expect(report.clients.map((c: { mcp: string }) => c.mcp)).toEqual(Array(10).fill('added'));
    expect(report.files_changed).toHaveLength(10);
    for (const [id, f] of Object.entries(CLIENT_FILES)) expect(readHome(home, f.file), id).toBe(f.text);
    expect(fs.existsSync(path.join(home, '.axle'))).toBe(false);
    // The table says what would happen, not what did.
    const table = await axle(['setup', '--server', server.url, '--dry-run'], { home });
    expect(table.stdout).toMatch(/Would change/);
    expect(table.stdout).toMatch(/Cursor +Probabilistic .*would register axle/);
    expect(table.stdout).not.toMatch(/(^|\s)registered axle/m);
    const undoTable = await axle(['setup', '--undo', '--dry-run'], { home });
    expect(undoTable.stdout).toMatch(/Cursor +Probabilistic .*nothing to remove/);
  });

  it('finds Claude Code under CLAUDE_CONFIG_DIR and skips clients that are not installed', async () => {
    const home = tempHome();
    const claudeDir = path.join(home, 'elsewhere/claude');
    fs.mkdirSync(claudeDir, { recursive: true });
    fs.writeFileSync(path.join(claudeDir, '.claude.json'), '{}\n');
    const key = await mintKey(server.url, smtp, 'claude-dir@example.com');
    writeAxleConfig(home, { server: server.url, api_key: key.api_key });
    const r = await axle(['setup', '--yes', '--enable-extraction', '--json'], {
      home,
      env: { CLAUDE_CONFIG_DIR: claudeDir },
    });
    expect(r.code, r.stderr).toBe(0);
    const clients = JSON.parse(r.stdout).clients as Array<{
      id: string;
      installed: boolean;
      mcp: string;
      hooks: string;
    }>;
    expect(clients.filter((c) => c.installed).map((c) => c.id)).toEqual(['claude-code']);
    expect(clients[0]).toMatchObject({ mcp: 'added', hooks: 'added' });
    expect(
      JSON.parse(fs.readFileSync(path.join(claudeDir, '.claude.json'), 'utf8')).mcpServers.axle.env.SVC_API_KEY,
    ).toBe(key.api_key);
    const hooks = JSON.parse(fs.readFileSync(path.join(claudeDir, 'settings.json'), 'utf8')).hooks;
    expect(Object.keys(hooks).sort()).toEqual(['PreCompact', 'SessionEnd']);
    expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(false);
  });
});
