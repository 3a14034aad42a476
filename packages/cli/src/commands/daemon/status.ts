import { AxleCommand } from '../../lib/base.js';
import { daemonPid } from '../../lib/daemon-control.js';
import { axlePaths } from '../../lib/paths.js';

export default class DaemonStatus extends AxleCommand {
  static override summary = 'Show whether the capture daemon is running';

  static override description = 'Exit code 0 either way; --json gives {running, pid}.';

  static override examples = ['<%= config.bin %> daemon status --json'];

  async run(): Promise<{ running: boolean; pid: number | null; log: string }> {
    const pid = await daemonPid();
    this.log(pid ? `Running (pid ${pid}); log: ${axlePaths().daemonLog}` : 'Not running.');
    return { running: pid !== null, pid, log: axlePaths().daemonLog };
  }
}
