// Several built server processes on one PostgreSQL database behind a round-robin proxy on loopback:
// the cluster test (packages/server/test/cluster.test.ts) and `npm run bench:cluster` both start it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));

/** Resolves with the URL a server process prints, or rejects with its output if it exits first. */
function listening(proc) {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.stderr.on('data', (chunk) => (err += chunk));
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${err}${out}`)));
  });
}

/**
 * A load balancer's core: each request goes to the next live instance in turn; a refused connection
 * moves it on to the next one (as balancers retry a dead upstream) and that instance is skipped from
 * then on.
 */
function roundRobin(instances) {
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const attempt = (tries) => {
        const live = instances.filter((i) => i.alive);
        if (live.length === 0 || tries > instances.length) {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end('{"error":"no instance answered"}');
          return;
        }
        const target = live[next++ % live.length];
        const upstream = http.request(
          `${target.url}${req.url}`,
          // A fresh connection per request: a pooled one to an instance that died fails mid-request instead of being refused.
          { method: req.method, headers: { ...req.headers, host: new URL(target.url).host }, agent: false },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', (err) => {
          if (res.headersSent) return res.destroy(err);
          // Never sent: try the next instance. Sent and then lost: the write may have happened, so like a
          // balancer with a non-idempotent request, answer 502 rather than send it twice.
          if (err.code === 'ECONNREFUSED') {
            target.alive = false;
            return attempt(tries + 1);
          }
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end('{"error":"instance lost"}');
        });
        upstream.end(body);
      };
      attempt(0);
    });
  });
  return server;
}

/**
 * Starts `n` server processes on `databaseUrl` (all at once, so they race to migrate and import the
 * catalog) with one shared session secret, and the proxy in front of them.
 */
export async function startCluster({ n = 3, databaseUrl, env = {} }) {
  const jwtSecret = randomBytes(32).toString('base64url');
  const dirs = [];
  const instances = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `axle-cluster-${i}-`));
      dirs.push(dataDir);
      const proc = spawn(process.execPath, [MAIN], {
        env: {
          ...process.env,
          PORT: '0',
          HOST: '127.0.0.1',
          AXLE_DATA_DIR: dataDir,
          AXLE_SEMANTIC_SEARCH: 'off',
          LOG_LEVEL: 'warn',
          AXLE_DATABASE_URL: databaseUrl,
          AXLE_DATABASE_POOL: '8',
          AXLE_JWT_SECRET: jwtSecret,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const instance = { proc, url: await listening(proc), alive: true, log: '' };
      // Kept for a failing test to show; bounded.
      const keep = (chunk) => (instance.log = (instance.log + chunk).slice(-20_000));
      proc.stdout.on('data', keep);
      proc.stderr.on('data', keep);
      return instance;
    }),
  );
  const proxy = roundRobin(instances);
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${proxy.address().port}`,
    jwtSecret,
    instances,
    /** SIGKILL, as a machine lost: no shutdown runs. */
    kill(i) {
      instances[i].proc.kill('SIGKILL');
    },
    async stop() {
      await Promise.all(
        instances.map(
          (i) =>
            new Promise((resolve) => {
              if (i.proc.exitCode !== null || i.proc.signalCode !== null) return resolve();
              i.proc.once('exit', resolve);
              i.proc.kill('SIGTERM');
            }),
        ),
      );
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}
