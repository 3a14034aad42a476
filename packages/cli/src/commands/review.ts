import { Args, Flags } from '@oclif/core';
import { type Api, terminalLine } from '../lib/api.js';
import { AxleCommand } from '../lib/base.js';
import { EXIT, fail } from '../lib/exit.js';
import { confirm, interactive } from '../lib/prompt.js';
import { table } from '../lib/table.js';

interface Row {
  id: string;
  title: string;
  lane: string;
  flags: string[];
  review_reason: string[];
  quality_score: number | null;
}
interface Summary {
  pending_count: number;
  lanes: Record<string, number>;
  flags: Record<string, number>;
  approvable_count: number;
  default_threshold: number;
  rows: Row[];
}
interface ReviewResult {
  id: string;
  ok: boolean;
  status?: string;
  review_reason?: string[];
  code?: string;
  error?: string;
}

/** POST /account/pending/approve-clean's answer. */
interface CleanAnswer {
  dry_run: boolean;
  threshold: number;
  selected_count: number;
  ids: string[];
  results: ReviewResult[];
}

/** The bulk routes take at most this many ids per call. */
const BATCH = 100;
const PAGE = 200;

const counts = (o: Record<string, number>) =>
  Object.entries(o)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

export default class Review extends AxleCommand {
  static override summary = 'Triage your held learnings: summary, list, approve, reject';

  static override description =
    `Everything extracted lands in your private review queue. With no arguments this shows the triage
summary (lanes, flags, how many approve-clean would publish). --list only inspects. approve and reject take ids
and use the bulk routes; approving an item a screen flagged asks first, or takes --acknowledge-flags.
--approve-clean is a dry run unless --confirm; --all-reject asks first unless --yes.

Exit codes: 0 done, 3 not signed in, 4 server unreachable, 5 some items were not decided, 6 a confirmation was declined.`;

  static override examples = [
    '<%= config.bin %> review',
    '<%= config.bin %> review --list --lane needs_your_eyes',
    '<%= config.bin %> review approve lrn_01J… lrn_01K…',
    '<%= config.bin %> review approve lrn_01J… --acknowledge-flags',
    '<%= config.bin %> review reject lrn_01J…',
    '<%= config.bin %> review --approve-clean',
    '<%= config.bin %> review --approve-clean --confirm --json',
    '<%= config.bin %> review --all-reject --yes',
  ];

  static override strict = false;

  static override args = {
    action: Args.string({ description: 'approve or reject, followed by learning ids', options: ['approve', 'reject'] }),
  };

  static override flags = {
    list: Flags.boolean({ description: 'list held items (changes nothing)' }),
    lane: Flags.string({
      description: 'with --list: only this lane',
      options: ['ready_to_publish', 'needs_score', 'needs_your_eyes'],
    }),
    flag: Flags.string({
      description: 'with --list: only items with this flag',
      options: ['injection', 'content_sensitivity', 'near_duplicate', 'process_advice'],
    }),
    limit: Flags.integer({ description: 'with --list: rows to show', default: 50, min: 1, max: PAGE }),
    'acknowledge-flags': Flags.boolean({ description: 'approve flagged items without asking' }),
    'approve-clean': Flags.boolean({
      description: 'approve every clean item at or above the threshold (dry run unless --confirm)',
    }),
    confirm: Flags.boolean({ description: 'with --approve-clean: really approve' }),
    threshold: Flags.string({
      description: 'with --approve-clean: minimum quality score, 0..1 (default: your account setting)',
    }),
    'all-reject': Flags.boolean({ description: 'reject every held item' }),
    yes: Flags.boolean({ char: 'y', description: 'do not ask for confirmation' }),
  };

  async run(): Promise<unknown> {
    const { args, argv, flags } = await this.parse(Review);
    const { api } = await this.api({ requireKey: true });
    const ids = (argv as string[]).slice(1);
    if (args.action) {
      if (ids.length === 0) fail(`Give the ids to ${args.action}: axle review ${args.action} ID…`, EXIT.USAGE);
      return args.action === 'approve'
        ? this.approve(api, ids, flags['acknowledge-flags'], flags.yes)
        : this.decide(api, 'reject', ids, false);
    }
    if (flags['approve-clean']) return this.approveClean(api, flags.confirm, flags.threshold);
    if (flags['all-reject']) return this.allReject(api, flags.yes);
    if (flags.list) return this.list(api, flags);
    const s = await api.call<Summary>('GET', '/account/pending/summary?limit=1');
    const lines = [
      `${s.pending_count} held item(s)`,
      `Lanes: ${counts(s.lanes)}`,
      `Flags: ${counts(s.flags)}`,
      `Approvable now: ${s.approvable_count} (at threshold ${s.default_threshold}; \`axle review --approve-clean\` shows them)`,
    ];
    for (const line of lines) this.log(await terminalLine(line));
    const { rows: _rows, ...summary } = s;
    return summary;
  }

  private async list(api: Api, flags: { lane?: string; flag?: string; limit: number }): Promise<Summary> {
    const q = new URLSearchParams({
      limit: String(flags.limit),
      ...(flags.lane && { lane: flags.lane }),
      ...(flags.flag && { flag: flags.flag }),
    });
    const s = await api.call<Summary>('GET', `/account/pending/summary?${q}`);
    if (s.rows.length === 0) this.log('Nothing held.');
    else {
      const score = (r: Row) => (r.quality_score === null ? '-' : r.quality_score.toFixed(2));
      const cells = await Promise.all(
        s.rows.map((r) => Promise.all([r.id, r.lane, score(r), r.flags.join(',') || '-', r.title].map(terminalLine))),
      );
      this.log(table(['ID', 'Lane', 'Score', 'Flags', 'Title'], cells));
      if (s.pending_count > s.rows.length) this.log(`(${s.rows.length} of ${s.pending_count}; --limit shows more)`);
    }
    return s;
  }

  /** Sends ids to a bulk route in batches, with progress on a terminal. */
  private async decide(api: Api, action: 'approve' | 'reject', ids: string[], acknowledge: boolean) {
    const progress = this.progress();
    const results: ReviewResult[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      progress.update(`${action === 'approve' ? 'Approving' : 'Rejecting'}… ${i}/${ids.length}`);
      const batch = ids.slice(i, i + BATCH);
      const res = await api.call<{ results: ReviewResult[] }>('POST', `/account/pending/${action}`, {
        ids: batch,
        ...(action === 'approve' && acknowledge && { acknowledge_flags: true }),
      });
      results.push(...res.results);
    }
    progress.done();
    return this.report(action, results);
  }

  /** One line a result, in the server's words made safe for a terminal (terminalLine). */
  private async report(action: string, results: ReviewResult[]) {
    for (const r of results) {
      const held =
        r.ok && r.status === 'pending_review' && r.review_reason?.length
          ? ` (still held: ${r.review_reason.join(', ')})`
          : '';
      const line = r.ok
        ? `${action === 'approve' ? 'approved' : 'rejected'} ${r.id}${held}`
        : `not ${action === 'approve' ? 'approved' : 'rejected'} ${r.id}: ${r.code ?? ''} ${r.error ?? ''}`;
      this.log(await terminalLine(line));
    }
    const failed = results.filter((r) => !r.ok).length;
    if (failed > 0) process.exitCode = EXIT.PARTIAL;
    return { action, succeeded: results.length - failed, failed, results };
  }

  /** Approves; flagged items the server refuses are shown and, after a yes, sent again acknowledged. */
  private async approve(api: Api, ids: string[], acknowledge: boolean, yes: boolean) {
    const first = await this.decide(api, 'approve', ids, acknowledge);
    const flagged = first.results.filter((r) => r.code === 'flags_not_acknowledged');
    if (flagged.length === 0 || acknowledge) return first;
    // The flagged items' own rows, asked for by id (the summary takes at most BATCH ids a call); without them the
    // lines point to --list, and the decision already made stands.
    const rows: Row[] = [];
    for (let i = 0; i < flagged.length; i += BATCH) {
      const ids = flagged.slice(i, i + BATCH).map((r) => r.id);
      const q = new URLSearchParams({ ids: ids.join(','), limit: String(ids.length) });
      rows.push(
        ...((await api.call<Summary>('GET', `/account/pending/summary?${q}`).catch(() => undefined))?.rows ?? []),
      );
    }
    for (const r of flagged) {
      const flags = rows.find((x) => x.id === r.id)?.flags.join(', ') ?? 'see axle review --list';
      this.logToStderr(await terminalLine(`${r.id} is flagged: ${flags}`));
    }
    const go =
      yes ||
      (!this.jsonEnabled() && interactive() && (await confirm(`Approve ${flagged.length} flagged item(s) anyway?`)));
    if (!go) {
      this.logToStderr('Flagged items left held; pass --acknowledge-flags to approve them.');
      return first;
    }
    process.exitCode = undefined;
    const second = await this.decide(
      api,
      'approve',
      flagged.map((r) => r.id),
      true,
    );
    const results = first.results.map((r) => second.results.find((s) => s.id === r.id) ?? r);
    process.exitCode = results.some((r) => !r.ok) ? EXIT.PARTIAL : undefined;
    const failed = results.filter((r) => !r.ok).length;
    return { action: 'approve', succeeded: results.length - failed, failed, results };
  }

  private async approveClean(api: Api, really: boolean, threshold: string | undefined) {
    const t = threshold === undefined ? undefined : Number(threshold);
    if (t !== undefined && !(t >= 0 && t <= 1)) fail('--threshold must be a number from 0 to 1', EXIT.USAGE);
    const call = (dryRun: boolean, at: number | undefined) =>
      api.call<CleanAnswer>('POST', '/account/pending/approve-clean', {
        dry_run: dryRun,
        ...(at !== undefined && { threshold: at }),
      });
    const res = await call(!really, t);
    if (res.dry_run) {
      this.log(
        `${res.selected_count} clean item(s) at or above ${res.threshold} would be approved${res.ids.length ? `: ${res.ids.join(' ')}` : ''}`,
      );
      if (res.selected_count > 0) this.log('Dry run: nothing changed. Add --confirm to approve them.');
      return res;
    }
    // The server approves at most 100 a call and leaves the rest selected: call again (at the threshold it used)
    // while it selected more than it took and the last call approved something, so "every clean item" is every one.
    const results = new Map(res.results.map((r) => [r.id, r]));
    for (let last = res; last.selected_count > last.ids.length && last.results.some((r) => r.ok); ) {
      last = await call(false, res.threshold);
      for (const r of last.results) results.set(r.id, r);
    }
    const all = [...results.values()];
    await this.report('approve', all);
    return { ...res, ids: all.map((r) => r.id), results: all };
  }

  private async allReject(api: Api, yes: boolean) {
    const ids: string[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await api.call<{ pending_count: number; learnings: Array<{ id: string }> }>(
        'GET',
        `/account/pending?limit=${PAGE}&offset=${offset}`,
      );
      ids.push(...page.learnings.map((l) => l.id));
      if (page.learnings.length < PAGE || ids.length >= page.pending_count) break;
    }
    if (ids.length === 0) {
      this.log('Nothing held.');
      return { action: 'reject', succeeded: 0, failed: 0, results: [] };
    }
    if (!yes) {
      if (this.jsonEnabled() || !interactive())
        fail(`Rejecting all ${ids.length} held items needs --yes when no one can be asked`, EXIT.DECLINED);
      if (!(await confirm(`Reject all ${ids.length} held item(s)?`))) fail('Nothing rejected.', EXIT.DECLINED);
    }
    return this.decide(api, 'reject', ids, false);
  }
}
