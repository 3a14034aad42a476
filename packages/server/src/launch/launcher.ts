import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type LaunchPlan, memoryLaunchPlan } from './memory-settings.js';

/** Set in the server process the launcher starts: it then exits with the launcher (main.ts). */
export const LAUNCHED_ENV = 'AXLE_LAUNCHED';

const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the server (dist/main.js) with the memory settings that can only be set before a process starts: in this
 * process when they are in effect already, else with them in a new image of this process where node can do that,
 * or in a child process, which gets this process's arguments, standard streams and signals, and whose exit status
 * becomes this process's.
 */
export async function launch(): Promise<void> {
  let plan: LaunchPlan | undefined;
  try {
    plan = process.env[LAUNCHED_ENV] ? undefined : memoryLaunchPlan(process.env, process.execArgv, process.platform);
  } catch (err) {
    process.stderr.write(`axle-server: ${(err as Error).message}\n`);
    process.exit(1);
  }
  if (!plan) {
    await import(MAIN);
    return;
  }
  const args = [...process.execArgv, ...plan.flags, MAIN, ...process.argv.slice(2)];
  const env = { ...process.env, ...plan.env, [LAUNCHED_ENV]: '1' };
  // Node 22.15 and later can replace this process: the server keeps its process id, and there is no launcher left.
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve === 'function') execve(process.execPath, [process.execPath, ...args], env);
  const child = spawn(process.execPath, args, {
    env,
    // The IPC channel closes when this process dies, however it dies: the server then stops too (main.ts).
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const s of FORWARDED) process.on(s, forward);
  child.on('error', (err) => {
    process.stderr.write(`axle-server: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
