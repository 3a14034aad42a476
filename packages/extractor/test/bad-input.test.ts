import { createWriteStream } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenClawAdapter } from '../src/daemon/adapter.js';
import { HeuristicModel } from '../src/model/heuristic.js';
import { runPipeline } from '../src/pipeline/run.js';
import { readTranscriptFile } from '../src/readers/file.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'axle-bad-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `total` bytes of Claude Code JSONL lines through a stream, never holding the file in memory. */
async function writeBigSession(path: string, total: number): Promise<void> {
  const out = createWriteStream(path);
  const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: `npm test failed with ERR_X again ${'lorem ipsum '.repeat(80)}` } })}\n`;
  for (let written = 0; written < total; written += line.length) {
    if (!out.write(line)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

describe('bad input is reported, nothing crashes', () => {
  it('a truncated last JSONL line (session still being written) is skipped and reported', async () => {
    const full = await readFile(fixture('claude-code-session.jsonl'), 'utf8');
    const path = join(dir, 'session.jsonl');
    await writeFile(
      path,
      `${full}{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Half wri`,
    );
    const r = await readTranscriptFile(path);
    expect(r.issues).toEqual([
      { kind: 'malformed_line', line: 16, message: expect.stringContaining('not valid JSON') },
    ]);
    expect(r.conversation.messages).toEqual(
      (await readTranscriptFile(fixture('claude-code-session.jsonl'))).conversation.messages,
    );
  });

  it('a binary file is refused without parsing', async () => {
    const path = join(dir, 'core.md');
    await writeFile(
      path,
      Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01'), Buffer.alloc(64), Buffer.from('# not really markdown\n')]),
    );
    const r = await readTranscriptFile(path);
    expect(r.format).toBe('binary');
    expect(r.conversation.messages).toEqual([]);
    expect(r.issues).toEqual([{ kind: 'binary', message: expect.stringContaining('NUL') }]);
  });

  it('NUL bytes after the first read chunk still mark the file binary', async () => {
    const path = join(dir, 'late.md');
    await writeFile(path, Buffer.concat([Buffer.from('## fine text\nmore text here\n'), Buffer.alloc(16)]));
    const r = await readTranscriptFile(path, { highWaterMark: 8 });
    expect(r.format).toBe('binary');
    expect(r.conversation.messages).toEqual([]);
  });

  it('invalid UTF-8 is decoded with replacement characters and reported once', async () => {
    const path = join(dir, 'notes.md');
    await writeFile(
      path,
      Buffer.concat([
        Buffer.from('## Cache bug\nThe build failed with '),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from(' garbage.\nFixed by clearing the cache.\n'),
      ]),
    );
    const r = await readTranscriptFile(path);
    expect(r.issues).toEqual([{ kind: 'invalid_utf8', message: expect.stringContaining('replaced') }]);
    expect(r.conversation.messages[0]?.text).toContain('\uFFFD');
    expect(r.conversation.messages[0]?.text).toContain('Fixed by clearing the cache.');
  });

  it('a 50 MB transcript is streamed and cut, not loaded', async () => {
    const path = join(dir, 'huge.jsonl');
    await writeBigSession(path, 50 * 1024 * 1024);
    const r = await readTranscriptFile(path);
    const chars = r.conversation.messages.reduce((n, m) => n + m.text.length, 0);
    expect(r.size).toBeGreaterThanOrEqual(50 * 1024 * 1024);
    expect(chars).toBe(500_000);
    expect(r.bytesRead).toBeLessThan(2 * 1024 * 1024); // stopped reading soon after the budget was met
    expect(r.issues).toEqual([{ kind: 'truncated', message: expect.stringContaining(`of ${r.size} bytes`) }]);
    const result = await runPipeline(r.conversation, {
      model: new HeuristicModel(),
      config: { chunk_size: 50_000, chunk_overlap: 0 },
    });
    expect(result.errors.filter((e) => e.stage === 'model')).toEqual([]);
    expect(result.stats.transcript_length).toBeLessThanOrEqual(501_000 + r.conversation.messages.length * 20);
  });

  it('a 50 MB file without a single newline is dropped line-wise with bounded memory', async () => {
    const path = join(dir, 'one-line.txt');
    const out = createWriteStream(path);
    const block = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 50; i++) if (!out.write(block)) await new Promise((r) => out.once('drain', r));
    await new Promise<void>((resolve) => out.end(() => resolve()));
    const r = await readTranscriptFile(path);
    expect(r.conversation.messages).toEqual([]);
    expect(r.issues).toEqual([{ kind: 'malformed_line', line: 1, message: 'line longer than 1000000 chars dropped' }]);
    expect(r.bytesRead).toBe(50 * 1024 * 1024);
  });

  it('a Claude Code prompt sent with a pasted screenshot is kept: the image data does not make its line too long', async () => {
    // Claude Code stores a pasted image inline, base64, in the same user line as the prompt typed with it.
    const image = Buffer.alloc(1_200_000, 7).toString('base64');
    const prompt = 'The login page renders blank after the upgrade, see the screenshot. Error: hydration mismatch';
    const line = JSON.stringify({
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
          { type: 'text', text: prompt },
        ],
      },
    });
    const after = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: 'Looking at it.' } });
    const path = join(dir, 'screenshot.jsonl');
    await writeFile(path, `${line}\n${after}\n`);
    const r = await readTranscriptFile(path, { highWaterMark: 64 * 1024 });
    expect(r.issues).toEqual([]);
    expect(r.conversation.messages.map((m) => m.text)).toEqual([prompt, 'Looking at it.']);
  });

  it('a memory file that changes while it is read is flagged, not recorded, and extracted on the next run', async () => {
    const path = join(dir, 'live.md');
    await cp(fixture('openclaw/memory/2026-11-19.md'), path);
    let appended = false;
    const r = await readTranscriptFile(path, {
      highWaterMark: 128,
      onChunk: async () => {
        if (!appended) {
          appended = true;
          await appendFile(path, '\n## 18:00 — appended mid-read\nMore notes.\n');
        }
      },
    });
    expect(r.issues.map((i) => i.kind)).toContain('changed_while_reading');

    const memory = join(dir, 'workspace');
    await mkdir(join(memory, 'memory'), { recursive: true });
    const daily = join(memory, 'memory', '2026-11-19.md');
    await cp(fixture('openclaw/memory/2026-11-19.md'), daily);
    let edits = 0;
    const adapter = new OpenClawAdapter({
      memoryPath: memory,
      claudeProjectsPath: null,
      statePath: join(dir, 'state.json'),
      queueDir: join(dir, 'queue'),
      killSwitchPath: join(dir, 'DISABLED'),
      sleep: async () => undefined,
      read: {
        highWaterMark: 128,
        onChunk: async () => {
          if (edits++ === 0) await appendFile(daily, '\n## 18:00 — the agent is still writing\nMore.\n');
        },
      },
    });
    const first = await adapter.runOnce();
    expect(first.skipped).toEqual([{ file: daily, reason: 'changed while being read; retried next run' }]);
    expect((await adapter.state()).count).toBe(0);
    const second = await adapter.runOnce();
    expect(second.files_processed).toBe(1);
    expect(second.learnings).toBe(1);
    expect((await adapter.state()).count).toBe(1);
  });

  it('the adapter reports a binary memory file, an oversized one and a huge Claude session, and still extracts the rest', async () => {
    const memory = join(dir, 'workspace');
    const claude = join(dir, 'projects', 'p');
    await mkdir(join(memory, 'memory'), { recursive: true });
    await mkdir(claude, { recursive: true });
    await cp(fixture('openclaw/memory/2026-11-19.md'), join(memory, 'memory', '2026-11-19.md'));
    await writeFile(join(memory, 'memory', 'blob.md'), Buffer.concat([Buffer.alloc(100), Buffer.from('text')]));
    await writeBigSession(join(memory, 'memory', 'giant.md'), 2_000_000);
    await writeBigSession(join(claude, 'big-session.jsonl'), 50 * 1024 * 1024);
    const adapter = new OpenClawAdapter({
      memoryPath: memory,
      claudeProjectsPath: join(dir, 'projects'),
      statePath: join(dir, 'state.json'),
      queueDir: join(dir, 'queue'),
      killSwitchPath: join(dir, 'DISABLED'),
      sleep: async () => undefined,
      extraction: { chunk_size: 50_000, chunk_overlap: 0 },
    });
    const r = await adapter.runOnce();
    expect(r.skipped).toEqual([
      { file: join(memory, 'memory', 'giant.md'), reason: expect.stringContaining('max_file_size') },
    ]);
    expect(r.errors).toEqual(
      expect.arrayContaining([
        { file: join(memory, 'memory', 'blob.md'), stage: 'read:binary', message: expect.any(String) },
        { file: join(claude, 'big-session.jsonl'), stage: 'read:truncated', message: expect.any(String) },
      ]),
    );
    expect(r.files_processed).toBe(3);
    expect(r.learnings).toBeGreaterThanOrEqual(1);
    // the binary file is recorded too, so it is not re-read every run while unchanged
    expect((await adapter.state()).count).toBe(3);
  });
});
