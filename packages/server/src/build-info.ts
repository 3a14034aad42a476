import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

// The compiler rewrites the package's build-info file on every build, so its mtime is when this
// build was made. src/ and dist/ sit at the same depth, so the path works from either.
const BUILD_INFO = fileURLToPath(new URL('../dist/.tsbuildinfo', import.meta.url));

/** When this server build was made; running from sources without a build, when this module last changed. */
export function buildTime(): Date {
  return fs.statSync(fs.existsSync(BUILD_INFO) ? BUILD_INFO : fileURLToPath(import.meta.url)).mtime;
}
