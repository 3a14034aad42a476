import fs from 'node:fs';
import path from 'node:path';

/** Each client's config file, relative to HOME on Linux, as the person had it before setup. */
export const CLIENT_FILES: Record<string, { file: string; text: string }> = {
  'claude-code': {
    file: '.claude.json',
    text: `{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "gh-mcp",
      "args": []
    }
  },
  "projects": {}
}
`,
  },
  'claude-code-settings': {
    file: '.claude/settings.json',
    text: `{
  "model": "opus",
  "hooks": {
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
`,
  },
  'claude-desktop': { file: '.config/Claude/claude_desktop_config.json', text: '{\n  "mcpServers": {}\n}\n' },
  cursor: {
    file: '.cursor/mcp.json',
    text: `{
  "mcpServers": {
    "other": {
      "command": "other-mcp"
    }
  }
}
`,
  },
  vscode: {
    file: '.config/Code/User/mcp.json',
    text: `// servers for every workspace
{
\t"servers": {
\t\t// the file system server
\t\t"fs": {
\t\t\t"type": "stdio",
\t\t\t"command": "fs-mcp"
\t\t}
\t},
\t"inputs": []
}
`,
  },
  windsurf: { file: '.codeium/windsurf/mcp_config.json', text: '{}\n' },
  codex: {
    file: '.codex/config.toml',
    text: `model = "o4-mini"
# approvals
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "9000"]
`,
  },
  'gemini-cli': { file: '.gemini/settings.json', text: '{\n  "theme": "GitHub"\n}\n' },
  cline: {
    file: '.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    text: '{\n  "mcpServers": {}\n}\n',
  },
  zed: {
    file: '.config/zed/settings.json',
    text: `// Zed settings
{
  "theme": "One Dark", // the dark one
  "context_servers": {
    /* a local server */
    "notes": { "command": "notes-mcp", "args": [] }
  }
}
`,
  },
  openclaw: {
    file: '.openclaw/openclaw.json',
    text: `// OpenClaw configuration (JSON5)
{
  agent: { model: 'anthropic/claude-sonnet' },
  mcp: {
    servers: {
      local: { command: 'local-mcp', args: ['--stdio'], },
    },
  },
}
`,
  },
};

/** Writes every sample config into `home`. */
export function writeClientFiles(home: string): void {
  for (const { file, text } of Object.values(CLIENT_FILES)) {
    fs.mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
    fs.writeFileSync(path.join(home, file), text);
  }
}

export const readHome = (home: string, file: string) => fs.readFileSync(path.join(home, file), 'utf8');
