import { createInterface } from 'node:readline/promises';
import { EXIT, fail } from './exit.js';

/** Whether a person can answer a question: stdin and stderr are both terminals. */
export const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/**
 * Asks a yes/no question on the terminal; Enter takes the default. Without a terminal nobody can
 * answer, so the default stands.
 */
export async function confirm(question: string, defaultYes = false): Promise<boolean> {
  if (!interactive()) return defaultYes;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} ${defaultYes ? '[Y/n]' : '[y/N]'} `)).trim().toLowerCase();
    return answer === '' ? defaultYes : answer === 'y' || answer === 'yes';
  } catch (err) {
    // Ctrl-C at the question: the command stops there.
    if ((err as Error).name === 'AbortError') return fail('Stopped (Ctrl-C).', EXIT.INTERRUPTED);
    throw err;
  } finally {
    rl.close();
  }
}
