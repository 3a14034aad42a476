import { mkdir, readFile } from 'node:fs/promises';
import { captureDisabled, OpenClawAdapter, type RunResult } from '@axle/extractor';
import { AxleCommand } from '../../lib/base.js';
import { type AxleConfig, readConfig } from '../../lib/config.js';
import { EXIT, fail } from '../../lib/exit.js';
import { axlePaths } from '../../lib/paths.js';
import { claudeProjects, openclawWorkspace } from '../../clients/locations.js';
import { acquireLock } from '../../runner/lock.js';

/** How often the kill switch and the config are looked at: capture stops within a second of either saying so. */
const KILL_SWITCH_POLL_MS = 250;

export default class DaemonRun extends AxleCommand {
  static override summary = 'Run the capture daemon in the foreground';

  static override description =
    `Watches the transcript folders of best-effort clients (Claude Code's project sessions, OpenClaw's
memory and sessions) with chokidar, and scrubs, extracts and sends their drafts like the runner. It pauses within a
second of the kill switch appearing, or of capture being switched off in ~/.axle/config.json (\`axle consent
revoke\` does that), and resumes when both allow it again. A malformed transcript line is skipped and logged.
Only one daemon runs per ~/.axle: its pid file is taken exclusively, and one left by a daemon that died is taken
over. Exit codes: 0 stopped by a signal, 1 another daemon is running, 6 background extraction is off.`;

  static override examples = ['<%= config.bin %> daemon run'];

  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const config = await readConfig();
    if (!config.capture?.enabled)
      fail('Background extraction is off: run `axle setup --enable-extraction` first', EXIT.DECLINED);
    const paths = axlePaths();
    await mkdir(paths.home, { recursive: true });
    // A second daemon would watch and send the same sessions, and its pid would hide the first from stop and undo.
    const release = await acquireLock(paths.daemonPid);
    if (!release) {
      const owner = (await readFile(paths.daemonPid, 'utf8').catch(() => '')).trim();
      return fail(`The daemon is already running (pid ${owner}); \`axle daemon stop\` stops it`, EXIT.FAILED);
    }
    const log = (entry: Record<string, unknown>) =>
      process.stdout.write(`${JSON.stringify({ ts: new Date().toISOString(), ...entry })}\n`);
    const create = (config: AxleConfig) =>
      new OpenClawAdapter({
        memoryPath: openclawWorkspace(),
        claudeProjectsPath: claudeProjects(),
        statePath: paths.state,
        queueDir: paths.queue,
        killSwitchPath: paths.killSwitch,
        config: { auto_publish: true },
        ...(config.server && config.api_key && { submit: { server: config.server, apiKey: config.api_key } }),
      });
    let adapter: OpenClawAdapter | undefined;
    let lastLogged: RunResult | null = null;
    const logRun = async () => {
      const result = (await adapter?.status())?.last_result ?? null;
      if (!result || result === lastLogged) return;
      lastLogged = result;
      for (const e of result.errors)
        log({
          event: e.stage.startsWith('read:') ? 'skipped' : 'error',
          file: e.file,
          stage: e.stage,
          message: e.message,
        });
      const { errors: _e, skipped: _s, ...summary } = result;
      log({ event: 'run', ...summary });
    };
    let busy = false;
    const tick = async () => {
      if (busy) return;
      busy = true;
      try {
        await logRun();
        // Consent withdrawn (capture off in the config) stops the daemon as it stops the hooks.
        const current = await readConfig().catch((): AxleConfig => ({}));
        const reason = (await captureDisabled(paths.killSwitch))
          ? 'kill switch on'
          : current.capture?.enabled
            ? undefined
            : 'capture off';
        if (reason && adapter) {
          await adapter.stop();
          await logRun();
          adapter = undefined;
          log({ event: 'paused', reason });
        } else if (!reason && !adapter) {
          adapter = create(current);
          await adapter.start();
          adapter.trigger();
          log({ event: 'watching', paths: [openclawWorkspace(), claudeProjects()] });
        }
      } catch (err) {
        log({ event: 'error', message: (err as Error).message });
      } finally {
        busy = false;
      }
    };
    // Listening before the first tick: a stop sent as soon as "watching" is logged must not meet the default
    // action of SIGTERM (killed at once, pid file and queue left as they were).
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await tick();
    const timer = setInterval(() => void tick(), KILL_SWITCH_POLL_MS);
    await stopped;
    clearInterval(timer);
    await adapter?.stop();
    await logRun();
    await release();
    log({ event: 'stopped' });
  }
}
