// oclif lists and finds commands from oclif.manifest.json (written by `npm run build`), so `axle --help`
// imports no command; a manifest out of step with the built commands would hide or misname one.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('..', import.meta.url));

function builtCommandIds(dir: string, prefix: string[] = []): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return builtCommandIds(path.join(dir, e.name), [...prefix, e.name]);
    return e.name.endsWith('.js') ? [[...prefix, e.name.slice(0, -3)].join(':')] : [];
  });
}

describe('oclif.manifest.json', () => {
  it('names every built command, at the package version, and ships in the package', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(CLI, 'oclif.manifest.json'), 'utf8'));
    const pkg = JSON.parse(fs.readFileSync(path.join(CLI, 'package.json'), 'utf8'));
    expect(manifest.version).toBe(pkg.version);
    expect(Object.keys(manifest.commands).sort()).toEqual(builtCommandIds(path.join(CLI, 'dist/commands')).sort());
    type Cached = { summary?: string; description?: string; relativePath?: string[] };
    for (const [id, c] of Object.entries<Cached>(manifest.commands)) {
      expect(c.summary ?? c.description, id).toBeTruthy();
      expect(fs.existsSync(path.join(CLI, ...c.relativePath!)), id).toBe(true);
    }
    expect(pkg.files).toContain('oclif.manifest.json');
  });
});
