// Generates corpora/technical/paragraphs.json: technical text with no personal data, shaped like what a coding
// agent's transcript holds (tool output, stack traces, READMEs, commit logs, the agent's own prose), for measuring
// how much of such text the thorough tier changes. Three sources, each paragraph tagged with its own:
// - `written`, `written-unseen`: paragraphs written for this corpus (corpora/technical/*.txt);
// - `docs:<path>`: this repository's Markdown documents, split at blank lines (long blocks at line groups);
// - `git-log`: this repository's commit messages as `git log` prints them, without the Author lines (an author is
//   personal data, which this corpus must not hold), three commits a paragraph.
// Usage: node bench/scrub/gen-technical.js [<commit>] > bench/scrub/corpora/technical/paragraphs.json
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const commit = process.argv[2] ?? 'HEAD';
const git = (...args) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });

/** Paragraphs written for this corpus, separated by lines holding only `%%`. */
const written = (name) =>
  readFileSync(new URL(`corpora/technical/${name}`, import.meta.url), 'utf8')
    .split(/\n%%\n/)
    .map((p) => p.trim())
    .filter(Boolean);

const paragraphs = [
  ...written('written.txt').map((text) => ({ source: 'written', text })),
  ...written('written-unseen.txt').map((text) => ({ source: 'written-unseen', text })),
];

/** Blocks of a Markdown file; a block over 600 characters is cut at line boundaries into parts of about 400. */
function blocks(text) {
  const out = [];
  for (const block of text.split(/\n\s*\n/)) {
    const trimmed = block.trim();
    if (trimmed.length < 40) continue;
    if (trimmed.length <= 600) {
      out.push(trimmed);
      continue;
    }
    let part = '';
    for (const line of trimmed.split('\n')) {
      part = part ? `${part}\n${line}` : line;
      if (part.length >= 400) {
        out.push(part);
        part = '';
      }
    }
    if (part.trim().length >= 40) out.push(part);
  }
  return out;
}

const docs = [
  'README.md',
  'bench/README.md',
  'bench/scrub/README.md',
  ...readdirSync(new URL('docs/', root)).map((f) => `docs/${f}`),
  ...readdirSync(new URL('packages/', root)).map((p) => `packages/${p}/README.md`),
].filter((p) => p.endsWith('.md'));
for (const path of docs) {
  let text;
  try {
    text = git('show', `${commit}:${path}`);
  } catch {
    continue;
  }
  for (const b of blocks(text)) paragraphs.push({ source: `docs:${path}`, text: b });
}

const format = 'commit %H%nDate:   %ad%n%n%w(0,4,4)%B%w(0,0,0)%x00';
const log = git('log', '--no-merges', `--format=${format}`, '--date=iso', commit);
const commits = log
  .split('\0')
  .map((c) => c.trim())
  .filter(Boolean);
for (let i = 0; i < commits.length; i += 3) {
  paragraphs.push({ source: 'git-log', text: commits.slice(i, i + 3).join('\n\n') });
}

const generatedFrom = git('rev-parse', commit).trim();
process.stdout.write(`${JSON.stringify({ generated_from: generatedFrom, paragraphs }, null, 1)}\n`);
