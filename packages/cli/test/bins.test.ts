import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeCommand, shellWord } from '../src/lib/bins.js';

describe('nodeCommand', () => {
  it('runs a script whose path holds what a shell would expand, as the path is written', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-bins-'));
    const odd = path.join(dir, 'a $HOME `echo x` "q" \'s\' \\b !h');
    fs.mkdirSync(odd);
    const script = path.join(odd, 'print-args.js');
    fs.writeFileSync(script, 'console.log(JSON.stringify(process.argv.slice(1)));\n');
    try {
      const out = execFileSync('sh', ['-c', nodeCommand(script, 'claude')], { encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual([script, 'claude']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('quotes for cmd on Windows, where a path cannot hold a double quote', () => {
    expect(shellWord('C:\\Program Files\\nodejs\\node.exe', 'win32')).toBe('"C:\\Program Files\\nodejs\\node.exe"');
    expect(shellWord("it's", 'linux')).toBe("'it'\\''s'");
  });
});
