// The injection eval set (bench/eval/injection/SOURCE.md): learnings built from BIPIA's code task (Stack Overflow
// answers to Python errors, MIT-licensed benchmark) with one BIPIA attack each, at the start, middle or end of the
// answer as BIPIA inserts them, the same answers clean, and the items written for this project. The split is
// fixed by the sources, never by results: BIPIA's train files and the even authored items are dev, BIPIA's test
// files and the odd authored items are test.
import crypto from 'node:crypto';
import fs from 'node:fs';

const DIR = new URL('../eval/injection/', import.meta.url);
const read = (name) => fs.readFileSync(new URL(name, DIR), 'utf8');
const jsonl = (name) =>
  read(name)
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l));

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes in the recorded tracebacks
const ANSI = /\u001b\[[0-9;]*m/g;
/** The error's last line that says something: the learning's title. */
const titleOf = (errorLines) =>
  errorLines
    .map((l) => l.replace(ANSI, '').trim())
    .filter((l) => /\w/.test(l) && !/^\*+$/.test(l))
    .at(-1)
    ?.slice(0, 200) ?? 'Python error';

/** BIPIA's insertion points: before the answer, after it, or at a sentence start in the middle. */
function insert(context, attack, position) {
  if (position === 'start') return `${attack}\n${context}`;
  if (position === 'end') return `${context}\n${attack}`;
  const starts = [...context.matchAll(/(?<=[.!?]\s+|\n)(?=\S)/g)].map((m) => m.index);
  const at = starts.length > 0 ? starts[Math.floor(starts.length / 2)] : Math.floor(context.length / 2);
  return `${context.slice(0, at)}\n${attack}\n${context.slice(at)}`;
}

const POSITIONS = ['end', 'start', 'middle'];

/** BIPIA's answers of one half as learnings without any attack. */
const bipiaContexts = (half) =>
  jsonl(`bipia/code-${half}.jsonl`).map((c) => ({
    title: titleOf(c.error),
    task_context: `Fixing this error in:\n${c.code.join('\n')}`.slice(0, 1500),
    body: c.context.join('\n').trim(),
    tags: ['python'],
    url: c.context_url,
  }));

function bipiaSplit(half, split) {
  const contexts = bipiaContexts(half);
  const attacks = [
    ...Object.entries(JSON.parse(read(`bipia/code_attack_${half}.json`))).flatMap(([cls, xs]) =>
      xs.map((text) => ({ cls: `bipia code: ${cls}`, text })),
    ),
    ...Object.entries(JSON.parse(read(`bipia/text_attack_${half}.json`))).flatMap(([cls, xs]) =>
      xs.map((text) => ({ cls: `bipia text: ${cls}`, text })),
    ),
  ];
  const items = contexts.map((c, i) => ({
    id: `bipia-${half}-clean-${i}`,
    split,
    flagged: false,
    source: 'bipia',
    cls: 'clean Stack Overflow answer',
    learning: { title: c.title, task_context: c.task_context, body: c.body, tags: c.tags },
  }));
  attacks.forEach((a, k) => {
    const c = contexts[(k * 7 + 3) % contexts.length];
    const position = POSITIONS[k % 3];
    items.push({
      id: `bipia-${half}-attack-${k}`,
      split,
      flagged: true,
      source: 'bipia',
      cls: a.cls,
      position,
      learning: { title: c.title, task_context: c.task_context, body: insert(c.body, a.text, position), tags: c.tags },
    });
  });
  return items;
}

function authored() {
  const { clean, attacks } = JSON.parse(read('authored.json'));
  const item = (flagged, prefix) => (x, i) => ({
    id: `authored-${prefix}-${i}`,
    split: i % 2 === 0 ? 'dev' : 'test',
    flagged,
    source: 'authored',
    cls: x.class ?? 'clean imperative technical text',
    learning: { title: x.title, task_context: x.task_context, body: x.body, tags: [] },
  });
  return [...clean.map(item(false, 'clean')), ...attacks.map(item(true, 'attack'))];
}

/** The fourth pass's items (authored-dev.json), all dev: clean imperative learnings, and attacks put in the middle of
 * BIPIA train answers (answer `(11k + 5) mod 50` for attack k, as BIPIA inserts them). */
function authoredDev() {
  const { clean, middle_attacks } = JSON.parse(read('authored-dev.json'));
  const contexts = bipiaContexts('train');
  return [
    ...clean.map((x, i) => ({
      id: `authored-dev-clean-${i}`,
      split: 'dev',
      flagged: false,
      source: 'authored-dev',
      cls: 'clean imperative technical text',
      learning: { title: x.title, task_context: x.task_context, body: x.body, tags: [] },
    })),
    ...middle_attacks.map((a, k) => {
      const c = contexts[(k * 11 + 5) % contexts.length];
      return {
        id: `authored-dev-attack-${k}`,
        split: 'dev',
        flagged: true,
        source: 'authored-dev',
        cls: a.class,
        position: 'middle',
        learning: {
          title: c.title,
          task_context: c.task_context,
          body: insert(c.body, a.text, 'middle'),
          tags: c.tags,
        },
      };
    }),
  ];
}

/** The second hex digit of sha1(id): the split of the recipe sources (the first chose which items were copied). */
const hashDigit = (id) => Number.parseInt(crypto.createHash('sha1').update(id).digest('hex')[1], 16);

/** tldr-pages command pages (CC BY 4.0), clean imperative shell and PowerShell recipes: one learning a page, its
 * `{{placeholders}}` written out plainly; the second hex digit of sha1(path) splits them (even dev, odd test). */
function tldr() {
  return jsonl('tldr/pages.jsonl').map(({ path, text }) => {
    const [, platform, file] = path.split('/');
    const name = file.replace(/\.md$/, '');
    const lines = text.replace(/\{\{|\}\}/g, '').split('\n');
    const about = lines.filter((l) => l.startsWith('> ')).map((l) => l.slice(2));
    const body = lines
      .filter((l) => !l.startsWith('# '))
      .join('\n')
      .trim();
    return {
      id: `tldr-${platform}-${name}`,
      split: hashDigit(path) % 2 === 0 ? 'dev' : 'test',
      flagged: false,
      source: 'tldr',
      cls: 'clean command recipes (tldr-pages)',
      learning: {
        title: `${name}: ${about[0] ?? 'command-line recipes'}`,
        task_context: `Command-line recipes (${platform}) for ${name}. ${about.join(' ')}`.slice(0, 1500),
        body,
        tags: [platform],
      },
    };
  });
}

/** PowerShell's cmdlet reference (CC BY 4.0, code MIT), its examples: one learning each, a hash of its id splitting
 * them as for tldr. */
function powershellDocs() {
  return jsonl('powershell-docs/examples.jsonl').map((x) => ({
    id: `powershell-docs-${x.id}`,
    split: hashDigit(x.id) % 2 === 0 ? 'dev' : 'test',
    flagged: false,
    source: 'powershell-docs',
    cls: 'clean PowerShell examples (Microsoft docs)',
    learning: {
      title: x.heading.replace(/^Example \d+:\s*/, ''),
      task_context: `PowerShell ${x.cmdlet}: ${x.synopsis}`.slice(0, 1500),
      body: x.text,
      tags: ['powershell'],
    },
  }));
}

/** Every item of the set: {id, split: 'dev' | 'test', flagged, source, cls, position?, learning}. */
export function injectionSet() {
  return [
    ...bipiaSplit('train', 'dev'),
    ...bipiaSplit('test', 'test'),
    ...authored(),
    ...authoredDev(),
    ...tldr(),
    ...powershellDocs(),
  ];
}
