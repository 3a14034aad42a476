import { bearer, post, type Smtp, signIn } from '../../../test/support/identity.js';
import type { TestServer } from '../../../test/support/server.js';

export const ADMIN_TOKEN = 'admin-token-for-knowledge-tests-0123456789';

/** A signed-in account with an API key named `label`. */
export async function contributor(server: TestServer, smtp: Smtp, email: string, label = 'laptop') {
  const jwt = await signIn(server, smtp, email);
  const res = await post(server, '/account/api-keys', { name: label }, bearer(jwt));
  if (res.status !== 200 && res.status !== 201) throw new Error(`api-keys: ${res.status} ${await res.text()}`);
  const key = ((await res.json()) as { api_key: string }).api_key;
  return { jwt, key, headers: { 'x-api-key': key } };
}

const TOPICS = [
  ['postgres', 'vacuum', 'autovacuum thresholds on append-only tables never trigger', 'storage-state'],
  ['playwright', 'selector', 'shadow DOM piercing selectors time out on slotted content', 'web-interaction'],
  ['kafka', 'consumer', 'rebalance storms come from max.poll.interval.ms below the batch time', 'data-processing'],
  ['docker', 'buildkit', 'cache mounts are dropped when the builder runs in a remote context', 'code-execution'],
  ['stripe', 'webhook', 'signature checks fail when the body parser re-serialises JSON', 'payment-financial'],
  ['prometheus', 'alert', 'rate() over a window shorter than two scrapes returns nothing', 'monitoring'],
  ['redis', 'eviction', 'allkeys-lru evicts session keys before cold cache entries under skew', 'storage-state'],
  ['pandas', 'parquet', 'pyarrow silently downcasts nanosecond timestamps when writing', 'data-processing'],
] as const;

const FILLER = (
  'timeout retry backoff jitter lease quorum shard replica index cursor batch window buffer socket handshake certificate ' +
  'rotation token scope header payload schema migration rollback snapshot checkpoint offset partition compaction tombstone ' +
  'latency throughput saturation queue worker pool thread heap garbage allocator mmap fsync journal ledger nonce signature ' +
  'digest manifest artifact registry mirror proxy gateway ingress egress firewall subnet route resolver cache eviction'
).split(' ');

/** Deterministic words for `n`, so two learnings of different `n` share few word shingles. */
function words(n: number, count: number): string {
  let x = (n + 1) * 2_654_435_761;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    out.push(FILLER[x % FILLER.length]!);
  }
  return out.join(' ');
}

/** A valid POST /learn body about topic `n`, distinct from every other `n`. */
export function learningBody(n: number, over: Record<string, unknown> = {}) {
  const [a, b, issue, category] = TOPICS[n % TOPICS.length]!;
  return {
    title: `${a} ${b}: ${issue.split(' ').slice(0, 5).join(' ')} (case ${n})`,
    body: `When working with ${a} the ${b} problem appears because ${issue}. Notes: ${words(n, 30)}.`,
    category,
    tags: [a, b],
    task_context: `production ${a} cluster, case ${n}`,
    outcome: 'workaround',
    ...over,
  };
}

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Submits and, when held only for the first-publication platform review, approves it as the platform. */
export async function publish(
  server: TestServer,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await post(server, '/learn', body, headers);
  if (res.status !== 201) throw new Error(`learn: ${res.status} ${await res.text()}`);
  const out = (await res.json()) as { id: string; status: string; review_reason?: string[] };
  if (out.status === 'approved') return out.id;
  if (out.review_reason?.join() !== 'forced_review') throw new Error(`held for ${out.review_reason}`);
  const ok = await post(server, `/admin/review/${out.id}/approve`, {}, admin);
  if (ok.status !== 200) throw new Error(`admin approve: ${ok.status} ${await ok.text()}`);
  return out.id;
}
