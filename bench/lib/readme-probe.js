// A dev probe of the injection screen on real-world clean text nobody here wrote: sections of the README files of
// the packages in node_modules and of the Markdown READMEs in /usr/share/doc that hold code or shell commands
// (install steps, usage, configuration), screened as POST /learn screens a learning. Nothing of it is an eval item
// or committed (the READMEs keep their own licences); it is rebuilt from whatever this machine holds. `node bench/lib/readme-probe.js [count] [--model] [--list]`:
// how many of `count` sections (default 300, chosen by sha1 of package and heading) each layer flags; `--list`
// prints every flag with its excerpt.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { screenLearning, screenedTexts } from '../../packages/server/dist/domain/screens/index.js';
import { offTaskFlags } from '../../packages/server/dist/services/semantic-screens.js';

const ROOT = new URL('../../node_modules/', import.meta.url).pathname;
const DOC = '/usr/share/doc';

/** Each README with its name and what it documents: node_modules' packages (scoped ones included), then
 * /usr/share/doc's Markdown READMEs (gzipped or not). */
function readmes(more) {
  const out = [];
  const names = fs
    .readdirSync(ROOT)
    .flatMap((n) =>
      n.startsWith('.') ? [] : n.startsWith('@') ? fs.readdirSync(path.join(ROOT, n)).map((s) => `${n}/${s}`) : [n],
    );
  for (const pkg of names) {
    const dir = path.join(ROOT, pkg);
    const readme = fs.readdirSync(dir).find((f) => /^readme(?:\.md|\.markdown)?$/i.test(f));
    if (!readme) continue;
    let description = '';
    try {
      description = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).description ?? '';
    } catch {}
    out.push({ name: pkg, description, text: fs.readFileSync(path.join(dir, readme), 'utf8') });
  }
  for (const pkg of fs.existsSync(DOC) ? fs.readdirSync(DOC) : []) {
    for (const f of ['README.md', 'README.md.gz']) {
      const file = path.join(DOC, pkg, f);
      if (!fs.existsSync(file)) continue;
      const raw = fs.readFileSync(file);
      out.push({ name: pkg, description: '', text: (f.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8') });
    }
  }
  if (more) out.push(...pythonDescriptions());
  return out;
}

/** With `--more`: the Markdown long descriptions of the Python packages installed on this machine (METADATA). */
function pythonDescriptions() {
  const out = [];
  const roots = ['/usr/lib/python3/dist-packages', '/usr/local/lib', path.join(os.homedir(), '.pyenv/versions')];
  const walk = (dir, depth) => {
    let entries = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory() && e.name.endsWith('.dist-info')) {
        const file = path.join(full, 'METADATA');
        if (!fs.existsSync(file)) continue;
        const text = fs.readFileSync(file, 'utf8');
        const split = text.indexOf('\n\n');
        const head = text.slice(0, split);
        if (!/^Description-Content-Type:\s*text\/markdown/im.test(head)) continue;
        out.push({
          name: head.match(/^Name:\s*(.+)$/m)?.[1] ?? e.name,
          description: head.match(/^Summary:\s*(.+)$/m)?.[1] ?? '',
          text: text.slice(split + 2),
        });
      } else if (e.isDirectory() && depth < 6 && !e.name.startsWith('.')) walk(full, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return out;
}

/** The README's sections under `#`-headings, each with its heading; fenced blocks do not split a section. */
function sections(text) {
  const out = [];
  let heading = '';
  let lines = [];
  let fenced = false;
  const flush = () => {
    const body = lines.join('\n').trim();
    if (heading && body) out.push({ heading, body });
  };
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const h = !fenced && line.match(/^#{1,4}\s+(.+?)\s*#*\s*$/);
    if (h) {
      flush();
      heading = h[1].replace(/[`*_[\]]|\(.*?\)/g, '').trim();
      lines = [];
    } else lines.push(line);
  }
  flush();
  return out;
}

/** A section with a code block or a shell command, of a learning's length. */
const HAS_CODE = /^\s*(?:```|~~~)|^\s*\$ |^\s*(?:npm|npx|yarn|pnpm|node|git|curl) /m;

export function readmeSections(count = 300, more = false) {
  const all = [];
  for (const { name: pkg, description, text } of readmes(more)) {
    for (const { heading, body } of sections(text)) {
      if (!HAS_CODE.test(body) || body.length < 150 || body.length > 4000) continue;
      const id = `${pkg}#${heading}`;
      all.push({
        id,
        key: crypto.createHash('sha1').update(id).digest('hex'),
        learning: { title: `${pkg}: ${heading}`, task_context: `${pkg}: ${description}`, body, tags: [] },
      });
    }
  }
  return all.sort((a, b) => (a.key < b.key ? -1 : 1)).slice(0, count);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 300);
  const items = readmeSections(count, process.argv.includes('--more'));
  let model;
  if (process.argv.includes('--model')) {
    const { EmbedderClient } = await import('../../packages/server/dist/search/embedder.js');
    model = new EmbedderClient();
    await model.init();
  }
  const byLayer = {};
  let flagged = 0;
  try {
    for (const item of items) {
      let r = screenLearning(item.learning);
      if (model) {
        const { all, task } = screenedTexts(item.learning);
        r = screenLearning(item.learning, { offTask: await offTaskFlags((t) => model.embed(t), all, task) });
      }
      const flags = r.injection_flags;
      if (flags.length === 0) continue;
      flagged++;
      for (const f of flags) byLayer[`${f.layer}.${f.rule}`] = (byLayer[`${f.layer}.${f.rule}`] ?? 0) + 1;
      if (process.argv.includes('--list'))
        for (const f of flags)
          console.log(`${item.id}\t${f.layer}.${f.rule}\t${JSON.stringify(f.excerpt).slice(0, 160)}`);
    }
  } finally {
    await model?.close();
  }
  console.log(
    `README sections with code: ${flagged} of ${items.length} flagged${model ? ' (with the sentence model)' : ' (regex layers)'}`,
  );
  for (const [rule, n] of Object.entries(byLayer).sort((a, b) => b[1] - a[1])) console.log(`  ${rule} ${n}`);
}
