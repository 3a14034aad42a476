import { AxleCommand } from '../../lib/base.js';
import { setKillSwitch } from '../../lib/kill-switch.js';

export default class KillSwitchOn extends AxleCommand {
  static override summary = 'Stop all capture now: hooks, the runner and the daemon stop reading transcripts';

  static override description =
    'The switch is the file ~/.axle/DISABLED; hooks check it before anything else. Exit code 0.';

  static override examples = ['<%= config.bin %> kill-switch on', '<%= config.bin %> kill-switch on --json'];

  async run(): Promise<{ disabled: boolean }> {
    await setKillSwitch(true);
    this.log('Kill switch on: capture is disabled.');
    return { disabled: true };
  }
}
