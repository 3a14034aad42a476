import { mkdir, rm, writeFile } from 'node:fs/promises';
import { captureDisabled } from '@axle/extractor/kill-switch';
import { axlePaths } from './paths.js';

/** The sentinel ~/.axle/DISABLED: while it exists hooks, runner and daemon capture nothing. */
export const killSwitchOn = () => captureDisabled(axlePaths().killSwitch);

export async function setKillSwitch(on: boolean): Promise<void> {
  const { home, killSwitch } = axlePaths();
  if (!on) return rm(killSwitch, { force: true });
  await mkdir(home, { recursive: true });
  await writeFile(killSwitch, `capture disabled by \`axle kill-switch on\` at ${new Date().toISOString()}\n`);
}
