import { rm } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { Api, ApiError } from '../lib/api.js';
import { AxleCommand } from '../lib/base.js';
import { hookScript, mcpScript, nodeCommand } from '../lib/bins.js';
import { clearAxleHome } from '../lib/axle-home.js';
import { type AxleConfig, DEFAULT_SERVER, readConfig, serverOf, updateConfig } from '../lib/config.js';
import { recordConsent } from '../lib/consent.js';
import { backupPath, exists } from '../lib/files.js';
import { stopDaemon } from '../lib/daemon-control.js';
import { EXIT, fail } from '../lib/exit.js';
import { confirm, interactive } from '../lib/prompt.js';
import { keyValid, signIn } from '../lib/session.js';
import { table } from '../lib/table.js';
import { type ClientReport, FileEdits, hook, isInstalled, register, unhook, unregister } from '../clients/apply.js';
import type { McpEntry } from '../clients/entry.js';
import { jsoncValue } from '../clients/jsonc.js';
import { CLIENTS } from '../clients/registry.js';

export interface SetupResult {
  server: string;
  dry_run: boolean;
  undo: boolean;
  signed_in: boolean;
  email?: string;
  capture: boolean;
  clients: ClientReport[];
  files_changed: string[];
  /** Undo: backups, files setup created and ~/.axle files removed (or that would be, in a dry run). */
  files_removed?: string[];
  /** Undo: the saved key was revoked on the server (or was already dead there). */
  key_revoked?: boolean;
  /** Undo: extraction consent was revoked on the server. */
  consent_revoked?: boolean;
  /** Undo: drafts kept in ~/.axle/queue. */
  drafts_kept?: string[];
}

/** The three lines shown before the extraction question: what is read, what is sent where, how to stop it. */
function extractionExplained(server: string): string[] {
  return [
    'Reads: the transcripts Claude Code and Gemini CLI save when a session ends, on this machine only.',
    `Sends: only scrubbed drafts (secrets and personal data removed locally), to your own review queue on ${server}; nothing is published until you approve it.`,
    'Off: `axle kill-switch on` pauses it at once; `axle consent revoke` withdraws consent; `axle setup --undo` removes the hooks.',
  ];
}

/** What happened to a client's entry and hooks, in the past tense, and as a dry run says it would happen. */
const CHANGE_TEXT: Record<'done' | 'dry', Record<string, string>> = {
  done: {
    added: 'registered axle',
    updated: 'updated axle',
    unchanged: 'already registered',
    removed: 'removed axle',
    absent: 'nothing to remove',
    hooksAdded: 'capture hooks installed',
    hooksRemoved: 'capture hooks removed',
  },
  dry: {
    added: 'would register axle',
    updated: 'would update axle',
    unchanged: 'already registered',
    removed: 'would remove axle',
    absent: 'nothing to remove',
    hooksAdded: 'would install capture hooks',
    hooksRemoved: 'would remove capture hooks',
  },
};

function describe(r: ClientReport, dryRun: boolean): string {
  if (!r.installed) return 'not installed';
  const text = CHANGE_TEXT[dryRun ? 'dry' : 'done'];
  if (r.mcp === 'corrupt' || r.mcp === 'conflict')
    return `${dryRun ? 'would be ' : ''}left untouched: ${r.mcp === 'corrupt' ? 'unreadable' : 'conflict'} (${r.problem})`;
  const parts = [r.mcp === 'skipped' ? '' : text[r.mcp]];
  if (r.hooks === 'added' || r.hooks === 'updated') parts.push(text.hooksAdded!);
  else if (r.hooks === 'unchanged') parts.push('capture hooks in place');
  else if (r.hooks === 'removed') parts.push(text.hooksRemoved!);
  else if (r.hooks === 'corrupt' || r.hooks === 'conflict')
    parts.push(`hooks ${dryRun ? 'would be ' : ''}left untouched (${r.problem})`);
  const note = CLIENTS.find((c) => c.id === r.id)?.afterSetup;
  if (note && (r.mcp === 'added' || r.mcp === 'updated' || r.mcp === 'unchanged')) parts.push(note);
  return parts.filter(Boolean).join('; ');
}

export default class Setup extends AxleCommand {
  static override summary = 'Connect your MCP clients to Axle: register axle-mcp, sign in, optionally enable capture';

  static override description =
    `Detects Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Codex CLI, Gemini CLI, Cline, Zed and
OpenClaw from their config files and registers the axle MCP server in each, with SVC_API_KEY and SVC_BASE_URL.
Edits are idempotent and atomic, keep comments and every other entry, and leave a <file>.axle-backup copy.
A config file that does not parse is reported and left untouched.

Sign-in is by device code. Background extraction (session-end hooks for Claude Code and Gemini CLI) is off
unless you answer yes to the prompt or pass --enable-extraction; --yes never turns it on.

Exit codes: 0 done, 1 the server could not check the saved key (busy or failing; it signs in again only for a
refused key), 3 sign-in failed, 4 server unreachable, 5 some client config was left untouched.`;

  static override examples = [
    '<%= config.bin %> setup',
    '<%= config.bin %> setup --server https://axle.example.com --yes',
    '<%= config.bin %> setup --dry-run --json',
    '<%= config.bin %> setup --enable-extraction',
    '<%= config.bin %> setup --undo',
  ];

  static override flags = {
    server: Flags.string({ description: 'Axle server URL (default: the saved one, else http://localhost:8402)' }),
    yes: Flags.boolean({
      char: 'y',
      description: 'answer yes to every prompt except the two about extraction consent (enable, revoke)',
    }),
    'dry-run': Flags.boolean({ description: 'show what would change; write nothing and do not sign in' }),
    undo: Flags.boolean({
      description: 'remove everything setup added (client entries, hooks, backups, ~/.axle) and revoke the saved key',
    }),
    'revoke-consent': Flags.boolean({
      description: 'with --undo: also revoke extraction consent on the server (otherwise asked, default No)',
    }),
    'enable-extraction': Flags.boolean({
      description: 'turn background extraction on (records consent on the server)',
    }),
    browser: Flags.boolean({
      description: 'open the sign-in page in a browser when a display is available (--no-browser: only print the link)',
      default: true,
      allowNo: true,
    }),
  };

  async run(): Promise<SetupResult> {
    const { flags } = await this.parse(Setup);
    const dryRun = Boolean(flags['dry-run']);
    const progress = this.progress();
    let config = await readConfig();
    // Undo revokes the key on the server it was saved for; an unusable saved address fails only the revoke.
    const server = flags.undo ? (config.server ?? DEFAULT_SERVER) : serverOf(config, flags.server);

    progress.update('Scanning for MCP clients…');
    const found = await Promise.all(CLIENTS.map(async (def) => ({ def, installed: await isInstalled(def) })));
    progress.done();

    if (flags.undo) return this.undo(found, config, server, dryRun, flags['revoke-consent']);

    let signedIn = false;
    try {
      signedIn = config.server === server && (await keyValid(server, config.api_key));
    } catch (err) {
      return fail((err as Error).message, err instanceof ApiError ? err.exit : EXIT.UNREACHABLE);
    }
    if (!signedIn && !dryRun) {
      config = await signIn(server, { openBrowser: flags.browser && interactive(), progress });
      signedIn = true;
      this.logToStderr(`Signed in as ${config.email}`);
    }

    const entry: McpEntry = {
      command: process.execPath,
      args: [mcpScript()],
      env: { SVC_API_KEY: signedIn ? config.api_key! : '<key from sign-in>', SVC_BASE_URL: server },
    };
    // Asked before any client file is read: a client (Claude Code rewrites ~/.claude.json as it runs) or the person
    // may write a file while the question waits, and the edits below are made to the text read.
    const capture = await this.decideCapture(config, flags, dryRun, server);
    const edits = new FileEdits();
    const reports: ClientReport[] = [];
    for (const { def, installed } of found) {
      const report: ClientReport = {
        id: def.id,
        name: def.name,
        tier: def.tier,
        installed,
        config: def.config(),
        mcp: 'skipped',
        hooks: def.hooks ? 'off' : 'none',
      };
      if (installed) {
        const r = await register(edits, def, entry);
        report.mcp = r.status;
        if (r.problem) report.problem = r.problem;
      }
      reports.push(report);
    }

    if (capture) {
      for (const report of reports) {
        const def = CLIENTS.find((c) => c.id === report.id)!;
        if (!report.installed || !def.hooks || report.mcp === 'corrupt') continue;
        const r = await hook(edits, def, { hooks: [{ type: 'command', command: nodeCommand(hookScript(), def.id) }] });
        report.hooks = r.status;
        if (r.problem) report.problem = r.problem;
      }
    }

    const changed = edits.changed();
    if (!dryRun) {
      await edits.commit();
      if (capture && !config.capture?.enabled) {
        await new Api({ server, apiKey: config.api_key! }).call('POST', '/extract/consent', { action: 'grant' });
        config = await updateConfig((c) => ({ ...c, capture: { enabled: true, since: new Date().toISOString() } }));
      }
    }
    return this.finish({
      server,
      dry_run: dryRun,
      undo: false,
      signed_in: signedIn,
      ...(config.email && { email: config.email }),
      capture,
      clients: reports,
      files_changed: changed,
    });
  }

  /** Capture stays as it is when already on; otherwise only --enable-extraction or a yes at the prompt turns it on. */
  private async decideCapture(
    config: AxleConfig,
    flags: { yes: boolean; 'enable-extraction': boolean },
    dryRun: boolean,
    server: string,
  ): Promise<boolean> {
    if (config.capture?.enabled || flags['enable-extraction']) return true;
    if (flags.yes || dryRun || this.jsonEnabled() || !interactive()) return false;
    for (const line of extractionExplained(server)) this.logToStderr(line);
    return confirm('Enable background extraction?');
  }

  private async undo(
    found: Array<{ def: (typeof CLIENTS)[number]; installed: boolean }>,
    config: AxleConfig,
    server: string,
    dryRun: boolean,
    revokeConsentFlag: boolean,
  ): Promise<SetupResult> {
    const edits = new FileEdits();
    const reports: ClientReport[] = [];
    const troubled = new Set<string>();
    for (const { def, installed } of found) {
      const r = await unregister(edits, def);
      const h = def.hooks ? await unhook(edits, def) : undefined;
      const report: ClientReport = {
        id: def.id,
        name: def.name,
        tier: def.tier,
        installed,
        config: def.config(),
        mcp: r.status,
        hooks: h?.status ?? 'none',
      };
      const problem = r.problem ?? h?.problem;
      if (problem) report.problem = problem;
      if (r.status === 'corrupt' || r.status === 'conflict') troubled.add(def.config());
      if (def.hooks && (h?.status === 'corrupt' || h?.status === 'conflict')) troubled.add(def.hooks.file());
      reports.push(report);
    }
    const parse = (path: string, text: string) => (path.endsWith('.json') ? jsoncValue(text) : text);
    await edits.preferBackups(parse);
    await edits.removeCreated(parse);
    const changed = edits.changed();
    // Backups of files Axle is gone from have done their job; a file left untouched keeps its own.
    const backups: string[] = [];
    for (const path of edits.paths())
      if (!troubled.has(path) && (await exists(backupPath(path)))) backups.push(backupPath(path));

    let keyRevoked = false;
    let consentRevoked = false;
    if (!dryRun) {
      await edits.commit();
      await stopDaemon();
      for (const b of backups) await rm(b, { force: true });
      if (config.api_key && config.server) {
        const revoked = await this.revokeOnServer(config.server, config.api_key, revokeConsentFlag);
        ({ keyRevoked, consentRevoked } = revoked);
      }
    }
    const home = await clearAxleHome(dryRun);
    return this.finish({
      server,
      dry_run: dryRun,
      undo: true,
      signed_in: false,
      capture: false,
      clients: reports,
      files_changed: changed,
      files_removed: [...backups, ...home.removed],
      key_revoked: keyRevoked,
      consent_revoked: consentRevoked,
      drafts_kept: home.keptDrafts,
    });
  }

  /**
   * Gives up the saved key on the server, first asking (default No) whether to revoke extraction
   * consent too, while the key can still do it. An unreachable server leaves both as they are (exit 5).
   */
  private async revokeOnServer(
    server: string,
    apiKey: string,
    revokeConsentFlag: boolean,
  ): Promise<{ keyRevoked: boolean; consentRevoked: boolean }> {
    const api = new Api({ server, apiKey });
    try {
      const settings = await api.raw('GET', '/account/settings');
      if (settings.status === 401) return { keyRevoked: true, consentRevoked: false }; // already dead
      let consentRevoked = false;
      if (settings.status === 200 && settings.body?.consent_granted === true) {
        let revoke = revokeConsentFlag;
        if (!revoke && !this.jsonEnabled() && interactive()) {
          this.logToStderr(
            'Extraction consent stays on your account unless revoked (`axle consent revoke` does it later).',
          );
          revoke = await confirm('Revoke extraction consent on the server too?');
        }
        if (revoke) {
          await recordConsent(api, 'revoke');
          consentRevoked = true;
        }
      }
      await api.call('DELETE', '/account/api-key');
      return { keyRevoked: true, consentRevoked };
    } catch (err) {
      process.exitCode = EXIT.PARTIAL;
      this.logToStderr(
        `Could not revoke the saved key on ${server} (${(err as Error).message}); revoke it from your dashboard.`,
      );
      return { keyRevoked: false, consentRevoked: false };
    }
  }

  private finish(result: SetupResult): SetupResult {
    const rows = result.clients.map((r) => [r.name, r.tier, r.installed ? r.config : '-', describe(r, result.dry_run)]);
    this.log(table(['Client', 'Capture tier', 'Config file', result.dry_run ? 'Would change' : 'Changed'], rows));
    this.log('');
    if (result.undo) {
      if (result.dry_run)
        this.log(`Dry run: nothing was removed (${result.files_removed?.length ?? 0} file(s) would be).`);
      else {
        this.log(
          `Removed Axle from every client, ${result.files_removed?.length ?? 0} backup and Axle file(s), and the saved key.`,
        );
        this.log(`API key: ${result.key_revoked ? 'revoked on the server' : 'NOT revoked (see above)'}`);
        this.log(`Extraction consent: ${result.consent_revoked ? 'revoked' : 'unchanged on the server'}`);
      }
      if (result.drafts_kept?.length)
        this.log(`Kept ${result.drafts_kept.length} draft file(s) in ~/.axle/queue; delete the folder to drop them.`);
    } else {
      this.log(`Server: ${result.server}${result.email ? ` (signed in as ${result.email})` : ''}`);
      this.log(`Background extraction: ${result.capture ? 'on (`axle kill-switch on` pauses it)' : 'off'}`);
      if (result.dry_run) this.log('Dry run: nothing was written.');
    }
    const problems = result.clients.filter(
      (c) => c.mcp === 'corrupt' || c.mcp === 'conflict' || c.hooks === 'corrupt' || c.hooks === 'conflict',
    );
    if (problems.length > 0) {
      process.exitCode = EXIT.PARTIAL;
      this.logToStderr(
        `${problems.length} client config(s) left untouched: ${problems.map((p) => `${p.config} (${p.problem})`).join('; ')}`,
      );
    }
    return result;
  }
}
