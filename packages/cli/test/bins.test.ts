import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandPaths, nodeCommand, shellWord } from '../src/lib/bins.js';

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

describe('commandPaths', () => {
  // `axle status` checks that a hook's paths exist: it read only double-quoted words, so once setup single-quoted
  // them it found none and never said a hook points at a moved or deleted script.
  it('reads back the paths nodeCommand wrote, and those setup double-quoted before', () => {
    const script = '/home/o\'brien/a "b" $x/axle-hook.js';
    expect(commandPaths(nodeCommand(script, 'claude-code'))).toEqual([process.execPath, script]);
    expect(commandPaths('"/usr/bin/node" "/opt/axle/axle-hook.js" "gemini-cli"')).toEqual([
      '/usr/bin/node',
      '/opt/axle/axle-hook.js',
    ]);
  });
});
