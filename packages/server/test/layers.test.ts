import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Layer -> layers it must not import from (docs/layout.md). */
const FORBIDDEN: Record<string, string[]> = {
  domain: ['http', 'routes', 'services', 'store', 'app.ts', 'compose.ts', 'deps.ts'],
  store: ['http', 'routes', 'services', 'app.ts', 'compose.ts', 'deps.ts'],
  services: ['http', 'routes', 'app.ts', 'compose.ts', 'deps.ts'],
  http: ['store', 'routes', 'app.ts', 'compose.ts'],
  routes: ['store', 'app.ts', 'compose.ts'],
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative specifiers of static imports, re-exports and dynamic import() calls. */
function importsOf(code: string): string[] {
  const specs: string[] = [];
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) specs.push(m[1]!);
  return specs;
}

/** The first path segment under src/ (a folder, or a top-level file name). */
const layerOf = (file: string) => path.relative(SRC, file).split(path.sep)[0]!.replace(/\.js$/, '.ts');

function violations(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const forbidden = FORBIDDEN[layerOf(file)];
    if (!forbidden) continue;
    for (const spec of importsOf(fs.readFileSync(file, 'utf8'))) {
      const target = layerOf(path.resolve(path.dirname(file), spec));
      if (forbidden.includes(target)) found.push(`${path.relative(SRC, file)} imports ${spec}`);
    }
  }
  return found;
}

/** Modules that name a dialect: only store/ and the entry points that open a database (composition) may import them. */
const DIALECT_MODULES = [/^store\/db\.ts$/, /^store\/postgres\//, /^store\/migrate\.ts$/, /^store\/fts-query\.ts$/];
const DIALECT_PACKAGES = ['sqlite3', 'pg'];
const MAY_OPEN_DATABASE = (rel: string) =>
  rel.startsWith('store/') || rel.startsWith('scripts/') || rel === 'server.ts';
/** Dialect syntax inside string literals (SQL) outside store/. */
const DIALECT_SQL = /\b(?:bm25|rowid|fts5|MATCH|PRAGMA|tsvector|tsquery|to_tsvector|pg_advisory\w*|LISTEN|NOTIFY)\b/;

function dialectLeaks(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const rel = path.relative(SRC, file).split(path.sep).join('/');
    if (MAY_OPEN_DATABASE(rel)) continue;
    const code = fs.readFileSync(file, 'utf8');
    for (const spec of importsOf(code)) {
      const target = path
        .relative(SRC, path.resolve(path.dirname(file), spec))
        .split(path.sep)
        .join('/');
      if (DIALECT_MODULES.some((m) => m.test(target.replace(/\.js$/, '.ts')))) found.push(`${rel} imports ${spec}`);
    }
    for (const m of code.matchAll(/\bfrom\s*['"]([^'".][^'"]*)['"]/g))
      if (DIALECT_PACKAGES.includes(m[1]!)) found.push(`${rel} imports ${m[1]}`);
    const withoutComments = code.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    // A backslash is only ever the start of an escape, so an unclosed quote cannot backtrack exponentially.
    for (const m of withoutComments.matchAll(/(['"`])(?:\\[\s\S]|(?!\1)[^\\])*?\1/g))
      if (DIALECT_SQL.test(m[0])) found.push(`${rel} has dialect SQL: ${m[0].slice(0, 60)}`);
  }
  return found;
}

describe('server layers', () => {
  it('reads every kind of relative import', () => {
    const code = `import a from '../http/x.js';\nimport type { B } from "../store/y.js";\nexport { c } from './z.js';\nconst d = await import('../routes/w.js');\nimport '../side.js';`;
    expect(importsOf(code)).toEqual(['../http/x.js', '../store/y.js', './z.js', '../routes/w.js', '../side.js']);
  });

  it('nothing above store/ knows the dialect: no dialect module, driver or dialect SQL outside store/ and the entry points', () => {
    expect(dialectLeaks()).toEqual([]);
  });

  it('routes and http/ -> services -> store/ and domain/: no import points back up or skips the services', () => {
    expect(violations()).toEqual([]);
  });
});
