import { Writable } from 'node:stream';
import { createLogger } from '../src/logger.js';

/** A logger at `level` whose records land in `lines`, parsed. */
export function capturingLogger(lines: Array<Record<string, unknown>>, level = 'info') {
  return createLogger(
    level,
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
}
