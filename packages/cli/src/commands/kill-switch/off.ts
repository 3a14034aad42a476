import { AxleCommand } from '../../lib/base.js';
import { setKillSwitch } from '../../lib/kill-switch.js';

export default class KillSwitchOff extends AxleCommand {
  static override summary = 'Allow capture again';

  static override description =
    'The switch is the file ~/.axle/DISABLED; hooks check it before anything else. Exit code 0.';

  static override examples = ['<%= config.bin %> kill-switch off', '<%= config.bin %> kill-switch off --json'];

  async run(): Promise<{ disabled: boolean }> {
    await setKillSwitch(false);
    this.log('Kill switch off: capture follows your settings again.');
    return { disabled: false };
  }
}
