import { access } from 'node:fs/promises';

/** True while the kill-switch sentinel (`~/.axle/DISABLED`) exists: all capture stops. */
export async function captureDisabled(sentinel: string): Promise<boolean> {
  try {
    await access(sentinel);
    return true;
  } catch {
    return false;
  }
}
