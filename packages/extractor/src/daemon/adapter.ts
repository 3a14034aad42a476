import type { FSWatcher } from 'chokidar';
import { relative, sep } from 'node:path';
import type { Model } from '../model/model.js';
import { HeuristicModel } from '../model/heuristic.js';
import { defaultPaths, claudeProjectsDir } from '../paths.js';
import { runPipeline } from '../pipeline/run.js';
import { type ReadFileOptions, readTranscriptFile } from '../readers/file.js';
import type { ScrubResult } from '@axle/scrub';
import { Submitter, type SubmitterOptions } from '../submit/client.js';
import { DraftQueue } from '../submit/queue.js';
import { type Clock, type ExtractionConfig, type Sleep, realSleep, systemClock } from '../types.js';
import { DEFAULT_OPENCLAW_CONFIG, type OpenClawConfig, parseConfigPatch } from './config.js';
import { globToRegExp } from './glob.js';
import { captureDisabled } from './kill-switch.js';
import { type ScannedFile, scanFiles } from './scan.js';
import { StateStore, hashFile } from './state.js';
import { startWatcher } from './watcher.js';
import type { OpenClawStateResponse } from '@axle/sdk';

/** Claude Code keeps `<projects>/<project>/<session>.jsonl`; one level of headroom for subagent folders. */
const CLAUDE_DEPTH = 2;

export interface OpenClawAdapterOptions {
  /** The OpenClaw workspace folder holding `MEMORY.md` and `memory/YYYY-MM-DD.md`. */
  memoryPath: string;
  /** Claude Code sessions (best-effort tier). Defaults to `~/.claude/projects`; `null` leaves them out. */
  claudeProjectsPath?: string | null;
  statePath?: string;
  queueDir?: string;
  killSwitchPath?: string;
  config?: Partial<OpenClawConfig>;
  extraction?: Partial<ExtractionConfig>;
  /** Defaults to the built-in heuristic extractor. */
  model?: Model;
  /** Where drafts go. Without it drafts stay in the local queue for `axle review`/a later flush. */
  submit?: Omit<SubmitterOptions, 'sleep' | 'clock'>;
  /** Periodic rescan while the daemon runs; watcher events trigger runs sooner. */
  intervalMs?: number;
  /** How long a changed file must stay quiet, and changes be absent, before a watcher-triggered run. */
  settleMs?: number;
  clock?: Clock;
  sleep?: Sleep;
  scrubber?: (text: string) => Promise<ScrubResult>;
  read?: Pick<ReadFileOptions, 'highWaterMark' | 'onChunk'>;
}

/** Result of one run, exposed as OpenClawStatus.last_result. */
export interface RunResult {
  started_at: string;
  finished_at: string;
  files_seen: number;
  files_processed: number;
  files_unchanged: number;
  learnings: number;
  /** Drafts dropped as near-duplicates of ones queued or sent before (e.g. a session file that grew). */
  duplicates: number;
  submitted: number;
  rejected: number;
  queued: number;
  skipped: Array<{ file: string; reason: string }>;
  errors: Array<{ file: string; stage: string; message: string }>;
  stopped?: string;
}

/** SPEC: OpenClawStatus. */
export interface OpenClawStatus {
  daemon_running: boolean;
  last_run: string | null;
  last_result: RunResult | null;
  interval_ms: number;
  memory_path: string;
  config: OpenClawConfig;
}

export type { OpenClawStateResponse } from '@axle/sdk';

export class RunInProgressError extends Error {
  override name = 'RunInProgressError';
  constructor() {
    super('an OpenClaw extraction run is already under way');
  }
}

interface Candidate extends ScannedFile {
  kind: 'memory' | 'claude';
}

/**
 * Background capture of OpenClaw memory files and Claude Code sessions: scan, skip files whose content
 * hash is unchanged, extract, queue and (with auto_publish) submit. The kill-switch sentinel is checked
 * before every run and every file. Runs never overlap; a failing file is reported and the run goes on.
 */
export class OpenClawAdapter {
  private config: OpenClawConfig;
  private readonly store: StateStore;
  private readonly queue: DraftQueue;
  private readonly killSwitch: string;
  private readonly claudePath: string | null;
  private readonly model: Model;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  readonly intervalMs: number;
  private running: Promise<RunResult> | undefined;
  private lastResult: RunResult | null = null;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private configLoaded = false;
  /** Set by stop(): a run pausing between files ends at once instead of holding up shutdown. */
  private stopping = false;
  private signalStop: () => void = () => undefined;
  private readonly stopped = new Promise<void>((resolve) => {
    this.signalStop = resolve;
  });
  /** Watcher errors (e.g. EACCES) since the last run, reported in the next run's result. */
  private watchErrors: string[] = [];

  constructor(private readonly opts: OpenClawAdapterOptions) {
    const paths = defaultPaths();
    this.config = { ...DEFAULT_OPENCLAW_CONFIG, ...parseConfigPatch(opts.config ?? {}) };
    this.store = new StateStore(opts.statePath ?? paths.state);
    this.queue = new DraftQueue(opts.queueDir ?? paths.queue);
    this.killSwitch = opts.killSwitchPath ?? paths.killSwitch;
    this.claudePath = opts.claudeProjectsPath === undefined ? claudeProjectsDir() : opts.claudeProjectsPath;
    this.model = opts.model ?? new HeuristicModel();
    this.clock = opts.clock ?? systemClock;
    this.sleep = opts.sleep ?? realSleep;
    this.intervalMs = opts.intervalMs ?? 15 * 60_000;
  }

  /** Settings saved by an earlier setConfig win over constructor defaults. */
  private async loadConfig(): Promise<void> {
    if (this.configLoaded) return;
    this.configLoaded = true;
    try {
      this.config = { ...this.config, ...parseConfigPatch(await this.store.savedConfig()) };
    } catch {
      // A hand-edited, invalid saved config is ignored rather than stopping capture.
    }
  }

  isRunning(): boolean {
    return this.running !== undefined;
  }

  async status(): Promise<OpenClawStatus> {
    await this.loadConfig();
    return {
      daemon_running: this.watcher !== undefined,
      last_run: this.lastResult?.started_at ?? null,
      last_result: this.lastResult,
      interval_ms: this.intervalMs,
      memory_path: this.opts.memoryPath,
      config: { ...this.config },
    };
  }

  /** SPEC GET /openclaw/state. */
  async state(): Promise<OpenClawStateResponse> {
    const entries = await this.store.entries();
    return { entries, count: entries.length };
  }

  /** Validates and applies a partial config (unknown fields throw ConfigError) and persists it. */
  async setConfig(patch: unknown): Promise<OpenClawConfig> {
    const parsed = parseConfigPatch(patch);
    await this.loadConfig();
    this.config = { ...this.config, ...parsed };
    await this.store.saveConfig({ ...(await this.store.savedConfig()), ...parsed });
    return { ...this.config };
  }

  /**
   * Starts a run in the background. Throws RunInProgressError while one is under way (HTTP 409).
   * Await `whenIdle()` for its result.
   */
  trigger(): { triggered: true; message: string } {
    if (this.running) throw new RunInProgressError();
    if (this.stopping) throw new Error('the OpenClaw adapter has been stopped');
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
    return { triggered: true, message: 'extraction run started' };
  }

  /** Resolves with the current run's result, or the last one when idle. */
  async whenIdle(): Promise<RunResult | null> {
    return this.running ? this.running : this.lastResult;
  }

  /** Runs once and waits for the result (CLI `axle extract --openclaw`, tests). */
  async runOnce(): Promise<RunResult> {
    this.trigger();
    return (await this.whenIdle()) as RunResult;
  }

  private matcher(): (rel: string) => boolean {
    const re = globToRegExp(this.config.glob_pattern);
    return (rel) => re.test(rel);
  }

  private async candidates(): Promise<Candidate[]> {
    const memory = (await scanFiles(this.opts.memoryPath, this.config.max_depth, this.matcher())).map((f) => ({
      ...f,
      kind: 'memory' as const,
    }));
    const claude = this.claudePath
      ? (await scanFiles(this.claudePath, CLAUDE_DEPTH, (rel) => rel.endsWith('.jsonl'))).map((f) => ({
          ...f,
          kind: 'claude' as const,
        }))
      : [];
    // Oldest change first, so a backlog larger than max_files_per_run is worked through over runs.
    return [...memory, ...claude].sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
  }

  private async run(): Promise<RunResult> {
    await this.loadConfig();
    const cfg = { ...this.config };
    const result: RunResult = {
      started_at: new Date(this.clock()).toISOString(),
      finished_at: '',
      files_seen: 0,
      files_processed: 0,
      files_unchanged: 0,
      learnings: 0,
      duplicates: 0,
      submitted: 0,
      rejected: 0,
      queued: 0,
      skipped: [],
      errors: this.watchErrors.splice(0).map((message) => ({ file: this.opts.memoryPath, stage: 'watch', message })),
    };
    // Why nothing more may be sent: looked at again before every request, not only once before the flush.
    const halt = async (): Promise<'shutdown' | 'kill_switch' | undefined> =>
      this.stopping ? 'shutdown' : (await captureDisabled(this.killSwitch)) ? 'kill_switch' : undefined;
    const submitter =
      this.opts.submit && cfg.auto_publish
        ? new Submitter(this.queue, { ...this.opts.submit, sleep: this.sleep, clock: this.clock, halt })
        : undefined;
    try {
      if (await captureDisabled(this.killSwitch)) {
        result.stopped = 'kill_switch';
        return result;
      }
      const files = await this.candidates();
      result.files_seen = files.length;
      for (const f of files) {
        if (result.files_processed >= cfg.max_files_per_run) {
          result.stopped = 'max_files_per_run';
          break;
        }
        if (await captureDisabled(this.killSwitch)) {
          result.stopped = 'kill_switch';
          break;
        }
        if ((await this.processFile(f, cfg, result)) === 'stop') break;
      }
      // Checked again: the switch may have been turned on, or the adapter stopped (consent revoked, a signal), while
      // the last file was being extracted.
      if (submitter && result.stopped !== 'kill_switch' && result.stopped !== 'shutdown') {
        const before = await halt();
        if (before) result.stopped = before;
      }
      if (submitter && result.stopped !== 'kill_switch' && result.stopped !== 'shutdown') {
        // Drafts left over from earlier runs (server down then) go out now too.
        const report = await submitter.flush();
        result.submitted += report.sent.length;
        result.rejected += report.rejected.length;
        if (report.stopped === 'shutdown' || report.stopped === 'kill_switch') result.stopped = report.stopped;
      }
      result.queued = (await this.queue.list('pending')).length;
    } catch (err) {
      result.errors.push({ file: this.opts.memoryPath, stage: 'run', message: (err as Error).message });
    } finally {
      await submitter?.close();
      result.finished_at = new Date(this.clock()).toISOString();
      this.lastResult = result;
    }
    return result;
  }

  /** Extracts one file unless it is out of bounds or unchanged; 'stop' when the kill switch appeared. */
  private async processFile(
    f: Candidate,
    cfg: OpenClawConfig,
    result: RunResult,
  ): Promise<'done' | 'skipped' | 'stop'> {
    const file = f.path;
    if (f.size < cfg.min_file_size) {
      result.skipped.push({ file, reason: `smaller than min_file_size (${f.size} < ${cfg.min_file_size} bytes)` });
      return 'skipped';
    }
    if (f.kind === 'memory' && f.size > cfg.max_file_size) {
      result.skipped.push({ file, reason: `larger than max_file_size (${f.size} > ${cfg.max_file_size} bytes)` });
      return 'skipped';
    }
    try {
      const hash = await hashFile(file);
      if ((await this.store.get(file))?.hash === hash) {
        result.files_unchanged++;
        return 'skipped';
      }
      // Pace extraction between files, then honour a kill switch flipped during the pause.
      if (result.files_processed > 0 && cfg.delay_between_files_ms > 0) {
        await Promise.race([this.sleep(cfg.delay_between_files_ms), this.stopped]);
        if (this.stopping) {
          result.stopped = 'shutdown';
          return 'stop';
        }
        if (await captureDisabled(this.killSwitch)) {
          result.stopped = 'kill_switch';
          return 'stop';
        }
      }
      const read = await readTranscriptFile(file, {
        ...this.opts.read,
        format: f.kind === 'claude' ? 'claude-code' : 'openclaw-memory',
      });
      for (const issue of read.issues) {
        if (issue.kind !== 'changed_while_reading')
          result.errors.push({ file, stage: `read:${issue.kind}`, message: issue.message });
      }
      if (read.issues.some((i) => i.kind === 'changed_while_reading')) {
        // Not recorded in state, so the next run reads the settled file; nothing is lost.
        result.skipped.push({ file, reason: 'changed while being read; retried next run' });
        return 'skipped';
      }
      result.files_processed++;
      let learnings = 0;
      if (read.format !== 'binary') {
        const extraction = await runPipeline(read.conversation, {
          model: this.model,
          ...(this.opts.extraction ? { config: this.opts.extraction } : {}),
          ...(this.opts.scrubber ? { scrubber: this.opts.scrubber } : {}),
          clock: this.clock,
        });
        for (const e of extraction.errors) {
          if (e.stage !== 'input') result.errors.push({ file, stage: e.stage, message: e.message });
        }
        learnings = extraction.learnings.length;
        const now = new Date(this.clock());
        const { duplicates } = await this.queue.enqueueNew(extraction.learnings, read.conversation.source, now);
        result.duplicates += duplicates;
      }
      result.learnings += learnings;
      // Recorded after queueing: a crash in between re-extracts the file rather than losing drafts.
      await this.store.record({ file, hash, ts: new Date(this.clock()).toISOString(), learnings });
      return 'done';
    } catch (err) {
      result.errors.push({ file, stage: 'file', message: (err as Error).message });
      return 'skipped';
    }
  }

  /** Starts the watcher and the periodic timer. Changes trigger a run shortly after they settle. */
  async start(): Promise<void> {
    if (this.watcher) return;
    await this.loadConfig();
    const memoryRe = () => globToRegExp(this.config.glob_pattern);
    const accept = (path: string): boolean => {
      const inMemory = relative(this.opts.memoryPath, path);
      if (!inMemory.startsWith('..')) return memoryRe().test(inMemory.split(sep).join('/'));
      return path.endsWith('.jsonl');
    };
    const paths = [this.opts.memoryPath, ...(this.claudePath ? [this.claudePath] : [])];
    this.watcher = await startWatcher({
      paths,
      depth: Math.max(this.config.max_depth, CLAUDE_DEPTH),
      accept,
      stabilityMs: this.opts.settleMs ?? 1000,
      onChange: () => this.schedule(this.opts.settleMs ?? 2000),
      onError: (err) => {
        this.watchErrors.push((err as Error).message ?? String(err));
      },
    });
    this.timer = setInterval(() => this.schedule(0), this.intervalMs);
    this.timer.unref();
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      if (this.stopping) return;
      if (this.running) {
        // Pick the change up once the current run is done.
        void this.running.then(() => this.schedule(delayMs));
        return;
      }
      this.trigger();
    }, delayMs);
    this.debounce.unref();
  }

  /** Stops watching and ends a run in progress at its next pause; the adapter is done afterwards. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.signalStop();
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.timer = undefined;
    this.debounce = undefined;
    await this.watcher?.close();
    this.watcher = undefined;
    await this.running;
  }
}
