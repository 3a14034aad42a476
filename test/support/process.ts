import type { ChildProcess } from 'node:child_process';

/** Resolves with the URL a server process prints, or rejects with what it wrote if it exits first. */
export function listeningUrl(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.stderr?.on('data', (chunk) => (err += chunk));
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${err}${out}`)));
  });
}

/** The environment of a built server on a free loopback port keeping its data in `dataDir`, search off. */
export function serverProcessEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    AXLE_DATA_DIR: dataDir,
    AXLE_SEMANTIC_SEARCH: 'off',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}
