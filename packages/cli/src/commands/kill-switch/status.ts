import { AxleCommand } from '../../lib/base.js';
import { killSwitchOn } from '../../lib/kill-switch.js';

export default class KillSwitchStatus extends AxleCommand {
  static override summary = 'Show whether the kill switch is on';

  static override description =
    'The switch is the file ~/.axle/DISABLED; hooks check it before anything else. Exit code 0.';

  static override examples = ['<%= config.bin %> kill-switch status', '<%= config.bin %> kill-switch status --json'];

  async run(): Promise<{ disabled: boolean }> {
    const disabled = await killSwitchOn();
    this.log(disabled ? 'Kill switch on: capture is disabled.' : 'Kill switch off.');
    return { disabled };
  }
}
