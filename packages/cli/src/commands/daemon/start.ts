import { spawn } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import { AxleCommand } from '../../lib/base.js';
import { cliScript } from '../../lib/bins.js';
import { readConfig } from '../../lib/config.js';
import { daemonPid } from '../../lib/daemon-control.js';
import { EXIT, fail } from '../../lib/exit.js';
import { axlePaths } from '../../lib/paths.js';

export default class DaemonStart extends AxleCommand {
  static override summary = 'Start the capture daemon in the background';

  static override description = `Runs \`axle daemon run\` detached, with its pid in ~/.axle/daemon.pid and its log in
~/.axle/logs/daemon.log. Exit codes: 0 running, 1 it did not start, 6 background extraction is off.`;

  static override examples = ['<%= config.bin %> daemon start'];

  async run(): Promise<{ running: boolean; pid: number; log: string }> {
    const paths = axlePaths();
    const running = await daemonPid();
    if (running) {
      this.log(`The daemon is already running (pid ${running}).`);
      return { running: true, pid: running, log: paths.daemonLog };
    }
    if (!(await readConfig()).capture?.enabled)
      fail('Background extraction is off: run `axle setup --enable-extraction` first', EXIT.DECLINED);
    await mkdir(paths.logs, { recursive: true });
    const out = await open(paths.daemonLog, 'a');
    const child = spawn(process.execPath, [cliScript(), 'daemon', 'run'], {
      detached: true,
      stdio: ['ignore', out.fd, out.fd],
      windowsHide: true,
    });
    child.unref();
    await out.close();
    // The daemon writes its pid file once it is up; a start that fails shows in its exit.
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      if ((await daemonPid()) === child.pid) {
        this.log(`Daemon started (pid ${child.pid}); log: ${paths.daemonLog}`);
        return { running: true, pid: child.pid!, log: paths.daemonLog };
      }
      const code = await Promise.race([exited, new Promise<'wait'>((r) => setTimeout(() => r('wait'), 100))]);
      if (code !== 'wait') fail(`The daemon exited (${code}); see ${paths.daemonLog}`, EXIT.FAILED);
    }
    return fail(`The daemon did not come up; see ${paths.daemonLog}`, EXIT.FAILED);
  }
}
