// Starts and stops the built server as a child process, on loopback, for `npm run bench`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));
/**
 * What users run of the build whose dist/main.js is `main` (`npm start`, `axle-server`): its bin, which in this
 * build is the launcher that starts main.js with its memory settings.
 */
export const userEntry = (main) => {
  const bin = path.join(path.dirname(main), '../bin/axle-server.js');
  return fs.existsSync(bin) ? bin : main;
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function health(url) {
  try {
    const res = await fetch(`${url}/health`);
    return res.status === 200 ? await res.json() : undefined;
  } catch {
    return undefined;
  }
}

/** The processes `pid` started, directly (Linux /proc). */
const childrenOf = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
/** `pid` and every process it started, recursively: a launched server is the launcher and its child. */
const processTree = (pid) => [pid, ...childrenOf(pid).flatMap(processTree)];
/** The server itself: the launcher's only child where it started one. */
export const serverProcess = (pid) => {
  const children = childrenOf(pid);
  return children.length === 1 ? serverProcess(children[0]) : pid;
};

/** Resident and peak resident memory of a process and those it started, in MB (Linux /proc). */
export function rssMb(pid) {
  let rss = 0;
  let peak = 0;
  for (const p of processTree(pid)) {
    const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
    const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1] ?? Number.NaN);
    rss += kb('VmRSS') / 1024;
    peak += kb('VmHWM') / 1024;
  }
  return { rss, peak };
}

/**
 * CPU seconds (user + system) a process and those it started have used so far: all their threads, or only the
 * server's main thread (the event loop) with `mainThread`. Linux /proc; 100 ticks per second.
 */
export function cpuSeconds(pid, { mainThread = false } = {}) {
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const ticks = (file) => {
    const fields = fs.readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  if (mainThread) {
    const server = serverProcess(pid);
    return ticks(`/proc/${server}/task/${server}/stat`);
  }
  return processTree(pid).reduce((sum, p) => sum + ticks(`/proc/${p}/stat`), 0);
}

/**
 * Spawns the server as users start it (the build's bin, or `npm start` with `viaNpm`) on a free loopback port and
 * polls /health every 5 ms from the moment of the spawn: `coldStartMs` is spawn -> first 200. `main` is another
 * build's dist/main.js (A/B runs).
 */
export async function startServer({ dataDir, env = {}, viaNpm = false, timeoutMs = 30_000, main = MAIN }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(viaNpm ? 'npm' : process.execPath, viaNpm ? ['start', '--silent'] : [userEntry(main)], {
    cwd: ROOT,
    // Its own process group, so stopping `npm start` also stops the node it runs.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    // The benches load /discover anonymously from one address: its per-address counter still runs (and costs what
    // it costs), its limit never refuses.
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      AXLE_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      AXLE_ANONYMOUS_DISCOVER_PER_MINUTE: '1000000000',
      ...env,
    },
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', resolve));
  exit.then(() => {
    exited = true;
  });
  const stop = async () => {
    if (!exited) {
      process.kill(-child.pid, 'SIGTERM');
      const killer = setTimeout(() => !exited && process.kill(-child.pid, 'SIGKILL'), 10_000);
      await exit;
      clearTimeout(killer);
    }
  };
  while (!(await health(url))) {
    if (exited) throw new Error(`server exited before answering /health:\n${stderr}`);
    if (performance.now() - started > timeoutMs) {
      await stop();
      throw new Error(`no /health 200 within ${timeoutMs} ms:\n${stderr}`);
    }
    await sleep(5);
  }
  return { url, pid: child.pid, coldStartMs: performance.now() - started, stop };
}

/** Polls /health until `search.semantic` leaves `warming`; resolves to the final state and the wait. */
export async function waitSemantic(url, timeoutMs) {
  const started = performance.now();
  for (;;) {
    const state = (await health(url))?.search?.semantic ?? 'unknown';
    const waitedMs = performance.now() - started;
    if (state !== 'warming' || waitedMs > timeoutMs) return { state, waitedMs };
    await sleep(250);
  }
}
