// No request waits on the sentence model without a bound: with the embedding worker stuck on a request (a stand-in
// worker thread that never answers text containing STALL), POST /learn answers within AXLE_MODEL_WAIT_MS, screened
// by the regex screens alone and saying so on the held item, and searches answer lexically in the same time.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, post, type Smtp, startSmtp } from '../../../test/support/identity.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { ADMIN_TOKEN, contributor, learningBody, publish } from './knowledge-helpers.js';
import { SMALL_CATALOG } from './search-helpers.js';

const STALLING_WORKER = fileURLToPath(new URL('./fixtures/stand-in-embed-worker.mjs', import.meta.url));
const WAIT_MS = 400;
/** What a request may take beyond the model's deadline (its own work, on a loaded machine). */
const SLACK_MS = 2500;

let server: TestServer;
let smtp: Smtp;
let alice: Awaited<ReturnType<typeof contributor>>;

/** The request's answer and how long it took, measured here. */
async function timed(run: () => Promise<Response>): Promise<{ res: Response; ms: number }> {
  const started = performance.now();
  const res = await run();
  await res.clone().arrayBuffer();
  return { res, ms: performance.now() - started };
}

beforeAll(async () => {
  smtp = await startSmtp();
  const env = { AXLE_SMTP_URL: smtp.url, AXLE_ADMIN_TOKEN: ADMIN_TOKEN, AXLE_CATALOG: SMALL_CATALOG };
  // A published learning for knowledge search to find lexically, put there while the model is off (the stand-in's
  // vectors would make the semantic screens' verdicts arbitrary).
  const before = await startTestServer(env);
  const bob = await contributor(before, smtp, 'bob@example.com');
  await publish(before, bob.headers, learningBody(0));
  await before.stop({ keepData: true });

  server = await startTestServer(
    { ...env, AXLE_SEMANTIC_SEARCH: 'on', AXLE_SEARCH_WORKERS: '1', AXLE_MODEL_WAIT_MS: String(WAIT_MS) },
    { dataDir: before.dataDir, embedWorkerFile: STALLING_WORKER },
  );
  // Alice has published nothing, so what she submits is held (first publication) and she sees it as its owner.
  alice = await contributor(server, smtp, 'alice@example.com');
  // The stand-in answers warming at once; the test's timeout bounds the wait.
  while ((await (await fetch(`${server.url}/health`)).json()).search.semantic !== 'ready')
    await new Promise((r) => setTimeout(r, 20));
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe('requests while the embedding worker is stuck', () => {
  it('POST /learn answers within the deadline, regex-screened, and the held item says why', async () => {
    // A request the words find apart from the learning is what the screens embed, with the task window (here
    // holding STALL); a technical body alone costs no model call.
    const request = 'Can you recommend a good novel for the weekend?';
    const stuck = learningBody(1, {
      title: `STALL ${learningBody(1).title}`,
      body: `${learningBody(1).body} ${request}`,
    });
    const first = await timed(() => post(server, '/learn', stuck, alice.headers));
    expect(first.res.status).toBe(201);
    expect(first.ms).toBeGreaterThanOrEqual(WAIT_MS - 50);
    expect(first.ms).toBeLessThan(WAIT_MS + SLACK_MS);

    // The worker is still stuck: the next submission waits in the queue, and leaves it at its deadline.
    const asking = learningBody(2, { body: `${learningBody(2).body} ${request}` });
    const queued = await timed(() => post(server, '/learn', asking, alice.headers));
    expect(queued.res.status).toBe(201);
    expect(queued.ms).toBeLessThan(WAIT_MS + SLACK_MS);

    const ids = [(await first.res.json()).id, (await queued.res.json()).id];
    const pending = await (await fetch(`${server.url}/account/pending`, { headers: bearer(alice.jwt) })).json();
    const notes = ids.map((id) => pending.learnings.find((l: { id: string }) => l.id === id)?.screening_note);
    for (const note of notes) expect(note).toMatch(/regex screens only.*did not answer within 400 ms/);
  }, 30_000);

  it('POST /knowledge and POST /discover answer lexically within the deadline', async () => {
    const knowledge = await timed(() => post(server, '/knowledge', { query: 'postgres autovacuum thresholds' }));
    expect(knowledge.res.status).toBe(200);
    const found = await knowledge.res.json();
    expect(found.search_mode).toBe('lexical');
    expect(found.results_count).toBeGreaterThan(0);
    expect(knowledge.ms).toBeLessThan(WAIT_MS + SLACK_MS);

    const discover = await timed(() => post(server, '/discover', { query: 'browser automation' }));
    expect(discover.res.status).toBe(200);
    expect((await discover.res.json()).search_mode).toBe('lexical');
    expect(discover.ms).toBeLessThan(WAIT_MS + SLACK_MS);
  }, 30_000);
});
