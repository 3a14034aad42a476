// runner.lock and daemon.pid: one owner at a time, also when several processes find the file a dead one left.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempHome } from './helpers.js';

const LOCK = fileURLToPath(new URL('../dist/runner/lock.js', import.meta.url));
/** Takes the lock, says `got` or `busy`, holds it until stdin ends, then releases it. */
const HOLDER = `
const { acquireLock } = await import(${JSON.stringify(LOCK)});
const release = await acquireLock(process.argv[1]);
process.stdout.write(release ? 'got\\n' : 'busy\\n');
process.stdin.resume();
process.stdin.on('end', async () => { await release?.(); process.exit(0); });`;

function holder(lock: string): { child: ChildProcess; answer: Promise<string> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', HOLDER, lock], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  const answer = new Promise<string>((resolve) =>
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(out.trim());
    }),
  );
  return { child, answer };
}

describe('acquireLock', () => {
  it('gives a lock a dead process left to exactly one of several processes taking it at once', async () => {
    const dir = tempHome();
    for (let round = 0; round < 10; round++) {
      const lock = path.join(dir, `runner-${round}.lock`);
      fs.writeFileSync(lock, '999999999'); // no such process
      const holders = Array.from({ length: 6 }, () => holder(lock));
      const answers = await Promise.all(holders.map((h) => h.answer));
      expect(
        answers.filter((a) => a === 'got'),
        `round ${round}: ${answers}`,
      ).toHaveLength(1);
      const exits = holders.map((h) => new Promise((r) => h.child.once('exit', r)));
      for (const h of holders) h.child.stdin!.end();
      await Promise.all(exits);
      expect(fs.existsSync(lock)).toBe(false);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith(`runner-${round}.`))).toEqual([]);
    }
  }, 60_000);
});
