// The README's curl examples, parsed out of README.md and run as written against a real server on loopback in outbox
// mode (no AXLE_SMTP_URL): through the curl binary when the machine has one, else as the same requests with fetch.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.js';

const README = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
/** The address the README's examples name: `npm start`'s default. */
const DOCUMENTED_URL = 'http://localhost:8402';

/** The words of one shell command line: single and double quotes and backslash escapes, no expansions. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && /["\\$`]/.test(line[i + 1] ?? '')) word += line[++i]!;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\') word = (word ?? '') + (line[++i] ?? '');
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (quote) throw new Error(`unclosed ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** Every command line starting with `curl` inside the README's sh code blocks, in order. */
function readmeCurls(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return blocks.flatMap((block) => block.replace(/\\\n/g, ' ').split('\n')).filter((line) => /^curl\s/.test(line));
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The request a curl command line sends, for the options the README uses; any other option fails the test. */
function parseCurl(argv: string[]): Request {
  const req: Request = { method: '', url: '', headers: {} };
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-s') continue;
    else if (arg === '-X') req.method = argv[++i]!;
    else if (arg === '-H') {
      const header = argv[++i]!;
      const colon = header.indexOf(':');
      req.headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (arg === '-d') req.body = argv[++i]!;
    else if (!arg.startsWith('-') && !req.url) req.url = arg;
    else throw new Error(`curl option ${arg} is not understood by this test`);
  }
  req.method ||= req.body === undefined ? 'GET' : 'POST';
  return req;
}

const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Runs a curl command line: the real curl when present, else fetch. Resolves to the status and parsed body. */
async function run(line: string): Promise<{ req: Request; status: number; body: Record<string, unknown> }> {
  const argv = shellWords(line);
  const req = parseCurl(argv);
  let status: number;
  let text: string;
  if (hasCurl) {
    const { stdout } = await promisify(execFile)('curl', [...argv.slice(1), '-w', '\n%{http_code}']);
    const cut = stdout.lastIndexOf('\n');
    [text, status] = [stdout.slice(0, cut), Number(stdout.slice(cut + 1))];
  } else {
    const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
    [text, status] = [await res.text(), res.status];
  }
  return { req, status, body: JSON.parse(text) };
}

describe('README examples', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('parses shell quoting as sh does', () => {
    expect(shellWords(`curl -s 'a b' "c \\"d\\"" e\\ f -d '{"x": 1}'`)).toEqual([
      'curl',
      '-s',
      'a b',
      'c "d"',
      'e f',
      '-d',
      '{"x": 1}',
    ]);
  });

  it('work as written against a server in outbox mode', async () => {
    const lines = readmeCurls(README);
    const seen: string[] = [];
    let token: string | undefined;
    let session: string | undefined;
    for (const written of lines) {
      // The README's placeholders: the magic link's token, then the session token the link is exchanged for.
      let line = written.replaceAll(DOCUMENTED_URL, server.url).replace('SESSION_TOKEN', session ?? 'SESSION_TOKEN');
      line = line.replace('token=TOKEN', `token=${token ?? 'TOKEN'}`);
      const { req, status, body } = await run(line);
      const route = `${req.method} ${new URL(req.url).pathname}`;
      seen.push(route);
      expect(status, `${written}\nanswered ${status} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(200);
      expect(status, `${written}\nanswered ${status} ${JSON.stringify(body)}`).toBeLessThan(300);
      if (route === 'POST /discover') {
        expect((body.results as unknown[]).length).toBeGreaterThan(0);
      } else if (route.startsWith('GET /skill/')) {
        expect(body.id).toBe(route.slice('GET /skill/'.length));
        expect(body.content_preview).toEqual(expect.any(String));
      } else if (route === 'POST /auth/magic-link') {
        // Outbox mode: the mail is in the data dir and the link in the log, where the README says to look.
        expect(fs.readdirSync(`${server.dataDir}/outbox`)).toHaveLength(1);
        const logged = server.logs.map((l) => JSON.parse(l) as { link?: string }).find((l) => l.link);
        token = new URL(logged!.link!).searchParams.get('token')!;
      } else if (route === 'GET /auth/verify') {
        expect(body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
        session = body.token as string;
      } else if (route === 'POST /account/api-keys') {
        expect(body.api_key).toMatch(/^axl_/);
      }
    }
    expect(seen).toEqual([
      'POST /discover',
      expect.stringMatching(/^GET \/skill\/.+/),
      'POST /auth/magic-link',
      'GET /auth/verify',
      'POST /account/api-keys',
    ]);
  });

  // docs/search.md and the OpenAPI description of GET /skill/{id} name lookups a reader tries as written; they must
  // find a skill of the bundled catalog, which changes under them (`open weather map` stopped matching).
  it('the GET /skill/{id} lookups docs/search.md and /openapi.json show find a skill', async () => {
    const searchMd = fs.readFileSync(new URL('../docs/search.md', import.meta.url), 'utf8');
    const bullet = /\*\*`GET \/skill\/\{id\}`\*\* accepts [^(]*\(([^)]*)\)/.exec(searchMd);
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { description: string } }>;
    };
    const described = /\(([^)]*)\)/.exec(openapi.paths['/skill/{id}']!.get.description);
    const examples = [bullet, described].flatMap((m) => [...(m?.[1] ?? '').matchAll(/`([^`]+)`/g)].map((e) => e[1]!));
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const example of examples) {
      const res = await fetch(`${server.url}/skill/${encodeURIComponent(example)}`);
      expect(res.status, `GET /skill/${example}`).toBe(200);
    }
  });
});
