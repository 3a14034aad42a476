import { stat } from 'node:fs/promises';
import { Args, Flags } from '@oclif/core';
import {
  DraftQueue,
  HeuristicModel,
  type LearningDraft,
  readTranscriptFile,
  runPipeline,
  type SourceClient,
  Submitter,
} from '@axle/extractor';
import { AxleCommand } from '../lib/base.js';
import { EXIT, fail } from '../lib/exit.js';
import { axlePaths } from '../lib/paths.js';
import { confirm, interactive } from '../lib/prompt.js';

/**
 * The drafts as a terminal shows them and as they are sent: a transcript carries other people's text (pages and
 * files the agent read, command output), and an escape sequence in it could hide part of a draft from the person
 * deciding whether to send it. Control, bidirectional-formatting and invisible characters go (line breaks stay in
 * the body and context); the server would remove them on arrival anyway.
 */
async function displayable(drafts: LearningDraft[]): Promise<LearningDraft[]> {
  if (drafts.length === 0) return drafts;
  const { normalizeDisplayText } = await import('@axle/sdk');
  const line = (t: string) => normalizeDisplayText(t, { singleLine: true }).trim();
  return drafts.map((d) => ({
    ...d,
    title: line(d.title),
    body: normalizeDisplayText(d.body),
    tags: d.tags.map(line),
    task_context: normalizeDisplayText(d.task_context),
  }));
}

export default class Extract extends AxleCommand {
  static override summary = 'Extract learnings from one transcript, show the drafts, and send them only if you say so';

  static override description =
    `Reads the file locally (Claude Code, OpenClaw or Codex CLI JSONL, OpenClaw memory Markdown, a Gemini CLI session
JSON, or plain text), scrubs it, and extracts drafts with the built-in extractor. Nothing leaves the machine until you answer
yes (or pass --yes); sent drafts go to your private review queue (POST /learn, submission_channel extraction).

Exit codes: 0 done (sent or not), 1 the file could not be read, 3 not signed in, 4 server unreachable, 5 some drafts
were refused or left queued.`;

  static override examples = [
    '<%= config.bin %> extract ~/.claude/projects/-home-me-api/5b0c3e2a.jsonl',
    '<%= config.bin %> extract ~/.codex/sessions/2026/11/27/rollout-2026-11-27T10-00-00-0199a213.jsonl',
    '<%= config.bin %> extract notes.md --dry-run --json',
    '<%= config.bin %> extract session.jsonl --yes',
  ];

  static override args = { file: Args.string({ description: 'transcript file', required: true }) };

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'send the drafts without asking' }),
    'dry-run': Flags.boolean({ description: 'show the drafts and send nothing' }),
    client: Flags.string({
      description: 'source client tag for the drafts',
      options: ['claude-code', 'openclaw', 'gemini-cli', 'codex', 'plain'],
    }),
  };

  async run(): Promise<{ drafts: LearningDraft[]; errors: unknown[]; sent: number; rejected: number; queued: number }> {
    const { args, flags } = await this.parse(Extract);
    let size: number;
    try {
      size = (await stat(args.file)).size;
    } catch (err) {
      return fail(`Cannot read ${args.file}: ${(err as Error).message}`, EXIT.FAILED);
    }
    const progress = this.progress();
    const read = await readTranscriptFile(args.file, {
      onChunk: (bytes) => progress.update(`Reading ${args.file}… ${Math.round((100 * bytes) / Math.max(1, size))}%`),
    });
    // A folder or a file that failed mid-read: nothing was read, which is not a transcript without learnings.
    const unreadable = read.issues.find((i) => i.kind === 'unreadable');
    if (unreadable) {
      progress.done();
      return fail(`Cannot read ${args.file}: ${unreadable.message}`, EXIT.FAILED);
    }
    progress.update('Scrubbing and extracting…');
    const extraction = await runPipeline(read.conversation, { model: new HeuristicModel() });
    progress.done();
    const errors = [...read.issues, ...extraction.errors];
    const drafts = await displayable(extraction.learnings);
    const result = { drafts, errors, sent: 0, rejected: 0, queued: 0 };
    for (const [i, d] of drafts.entries()) {
      this.log(`\n[${i + 1}/${drafts.length}] ${d.title}`);
      this.log(`  ${d.category} · ${d.outcome} · tags: ${d.tags.join(', ')}`);
      this.log(`  ${d.body.replace(/\n/g, '\n  ')}`);
      // Sent too: nothing leaves that the person was not shown.
      if (d.task_context) this.log(`  Context: ${d.task_context.replace(/\n/g, '\n  ')}`);
    }
    for (const e of read.issues) this.logToStderr(`skipped: ${e.message}`);
    if (drafts.length === 0) {
      this.log('No learnings found in this transcript.');
      return result;
    }
    if (flags['dry-run']) return result;
    const { api, config } = await this.api({ requireKey: true });
    if (!flags.yes) {
      const askable = interactive() && !this.jsonEnabled();
      if (!askable || !(await confirm(`\nSend ${drafts.length} draft(s) to ${api.server} for your review queue?`))) {
        this.log('Not sent.');
        return result;
      }
    }
    const queue = new DraftQueue(axlePaths().queue);
    const source = (flags.client ?? read.conversation.source) as SourceClient;
    const submitter = new Submitter(queue, { server: api.server, apiKey: config.api_key!, maxAttempts: 2 });
    try {
      const report = await submitter.submit(drafts, source);
      result.sent = report.sent.length;
      result.rejected = report.rejected.length;
      result.queued = report.pending.length;
      this.log(
        `Sent ${result.sent}; refused ${result.rejected}; still queued ${result.queued}${report.stopped ? ` (${report.stopped})` : ''}.`,
      );
      for (const r of report.rejected) this.logToStderr(`refused: ${r.reason}`);
      if (result.rejected + result.queued > 0) process.exitCode = EXIT.PARTIAL;
    } finally {
      await submitter.close();
    }
    return result;
  }
}
