import { AxleCommand } from '../../lib/base.js';
import { stopDaemon } from '../../lib/daemon-control.js';

export default class DaemonStop extends AxleCommand {
  static override summary = 'Stop the background capture daemon';

  static override description =
    'Sends SIGTERM and waits for it to finish the file in hand. Exit code 0 whether or not it was running.';

  static override examples = ['<%= config.bin %> daemon stop'];

  async run(): Promise<{ stopped: boolean }> {
    const stopped = await stopDaemon();
    this.log(stopped ? 'Daemon stopped.' : 'The daemon was not running.');
    return { stopped };
  }
}
