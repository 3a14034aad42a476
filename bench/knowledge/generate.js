// Generates the knowledge-search evaluation set: bench/knowledge/learnings.json (300 learnings) and
// bench/knowledge/queries.json (labelled queries). Source: written for this project from templates
// below: 25 technologies with their own components, settings and error texts, each with three
// operational problems drawn from eight problem kinds. Each problem yields a canonical learning, a
// near-paraphrase (same fix, other words), a failed attempt at it (partly relevant) and an unrelated
// note about the same component (a distractor sharing its vocabulary). Deterministic: run
// `node bench/knowledge/generate.js` to rewrite both files.
import fs from 'node:fs';

const TECH = [
  ['PostgreSQL', 'storage-state', 'autovacuum worker', 'autovacuum_vacuum_scale_factor', 'canceling statement due to lock timeout', 'dead tuples', 'pgBouncer'],
  ['Kafka', 'data-processing', 'consumer group', 'max.poll.interval.ms', 'CommitFailedException', 'consumer lag', 'Redpanda'],
  ['Redis', 'storage-state', 'eviction policy', 'maxmemory-policy', 'OOM command not allowed', 'evicted keys', 'KeyDB'],
  ['Playwright', 'web-interaction', 'locator', 'actionTimeout', 'Timeout 30000ms exceeded', 'flaky retries', 'Puppeteer'],
  ['Docker', 'code-execution', 'BuildKit cache', 'DOCKER_BUILDKIT', 'failed to compute cache key', 'layer cache hits', 'Podman'],
  ['Stripe', 'payment-financial', 'webhook endpoint', 'tolerance', 'No signatures found matching the expected signature', 'webhook retries', 'Adyen'],
  ['Prometheus', 'monitoring', 'scrape job', 'scrape_interval', 'context deadline exceeded', 'missed samples', 'VictoriaMetrics'],
  ['pandas', 'data-processing', 'read_csv parser', 'dtype', 'DtypeWarning: Columns have mixed types', 'memory usage', 'Polars'],
  ['Kubernetes', 'code-execution', 'liveness probe', 'initialDelaySeconds', 'Back-off restarting failed container', 'restart count', 'Nomad'],
  ['Elasticsearch', 'storage-state', 'bulk indexer', 'refresh_interval', 'es_rejected_execution_exception', 'indexing latency', 'OpenSearch'],
  ['Selenium', 'web-interaction', 'WebDriver session', 'pageLoadTimeout', 'StaleElementReferenceException', 'session crashes', 'Cypress'],
  ['Airflow', 'data-processing', 'scheduler', 'parallelism', 'Task received SIGTERM signal', 'queued tasks', 'Dagster'],
  ['S3', 'storage-state', 'multipart upload', 'multipart_chunksize', 'SlowDown: Please reduce your request rate', 'throttled requests', 'MinIO'],
  ['Grafana', 'monitoring', 'alert rule', 'for duration', 'DatasourceNoData', 'alert flapping', 'Alertmanager'],
  ['Node.js', 'code-execution', 'event loop', 'UV_THREADPOOL_SIZE', 'FATAL ERROR: Reached heap limit', 'event loop lag', 'Bun'],
  ['PayPal', 'payment-financial', 'IPN listener', 'notify_url', 'INVALID IPN verification response', 'duplicate notifications', 'Braintree'],
  ['MongoDB', 'storage-state', 'change stream', 'maxAwaitTimeMS', 'ChangeStreamHistoryLost', 'oplog window', 'DocumentDB'],
  ['Spark', 'data-processing', 'shuffle stage', 'spark.sql.shuffle.partitions', 'FetchFailedException', 'spilled bytes', 'Flink'],
  ['Terraform', 'code-execution', 'state lock', 'lock_timeout', 'Error acquiring the state lock', 'plan drift', 'Pulumi'],
  ['Datadog', 'monitoring', 'APM tracer', 'DD_TRACE_SAMPLE_RATE', 'Dropped spans: buffer full', 'trace sampling', 'New Relic'],
  ['Puppeteer', 'web-interaction', 'headless browser', 'protocolTimeout', 'Target closed', 'zombie chrome processes', 'Playwright'],
  ['GitHub Actions', 'code-execution', 'runner cache', 'actions/cache key', 'Cache not found for input keys', 'cache restore time', 'GitLab CI'],
  ['DynamoDB', 'storage-state', 'partition key', 'provisioned WCU', 'ProvisionedThroughputExceededException', 'hot partitions', 'Cassandra'],
  ['Plaid', 'payment-financial', 'Link token', 'webhook verification key', 'ITEM_LOGIN_REQUIRED', 'reauth prompts', 'MX'],
  ['OpenTelemetry', 'monitoring', 'batch span processor', 'OTEL_BSP_MAX_QUEUE_SIZE', 'Exporter export timeout', 'dropped spans', 'Jaeger'],
].map(([name, category, comp, knob, err, metric, alt]) => ({ name, category, comp, knob, err, metric, alt }));

/** Problem kinds: canonical and paraphrased text, a failed attempt, and the two query phrasings. */
const KINDS = [
  {
    tag: 'timeout',
    title: (t) => `${t.name} ${t.comp} times out under load until ${t.knob} is raised`,
    body: (t) => `Under peak traffic the ${t.name} ${t.comp} failed with "${t.err}". The default ${t.knob} was too low for our batch sizes. Raising ${t.knob} to three times the p99 processing time stopped the timeouts; watch ${t.metric} after the change.`,
    ptitle: (t) => `Fixing ${t.name} ${t.comp} stalls during traffic spikes`,
    pbody: (t) => `When load climbs, the ${t.comp} in ${t.name} gives up too early. The cure was a larger ${t.knob}, sized from the slowest batches we measured, after which ${t.metric} stayed flat.`,
    fail: (t) => `Adding more replicas did not stop ${t.name} ${t.comp} timeouts ("${t.err}"): the limit is per request, so scaling out changed nothing.`,
    q: (t) => `${t.name} ${t.comp} timeout under heavy load`,
    qp: (t) => `my ${t.name} ${t.comp} keeps giving up when traffic peaks, what setting fixes it`,
  },
  {
    tag: 'memory',
    title: (t) => `${t.name} ${t.comp} memory grows without bound`,
    body: (t) => `Memory of the ${t.name} ${t.comp} climbed for days until the process was killed. Profiling showed unbounded buffers; capping them with ${t.knob} and restarting weekly kept resident memory stable while ${t.metric} stayed normal.`,
    ptitle: (t) => `Stopping a slow ${t.name} ${t.comp} leak`,
    pbody: (t) => `The ${t.comp} of ${t.name} kept eating RAM over several days. Putting a ceiling on its buffers through ${t.knob} ended the leak-like growth.`,
    fail: (t) => `Doubling the container memory for ${t.name} ${t.comp} only delayed the crash; the growth continued at the same rate.`,
    q: (t) => `${t.name} ${t.comp} memory leak growth`,
    qp: (t) => `RAM of ${t.name} ${t.comp} keeps climbing for days until it gets killed`,
  },
  {
    tag: 'auth',
    title: (t) => `${t.name} ${t.comp} authentication fails after credential rotation`,
    body: (t) => `After rotating secrets, the ${t.name} ${t.comp} rejected every call with "${t.err}". Old credentials were cached for the process lifetime. Reloading credentials on rotation and verifying with a canary call before cutting over fixed it.`,
    ptitle: (t) => `${t.name} ${t.comp} rejects calls once secrets are rotated`,
    pbody: (t) => `Secret rotation broke ${t.name}: the ${t.comp} kept using cached credentials. Reload them when they rotate and probe with a canary request first.`,
    fail: (t) => `Restarting only one instance after rotating ${t.name} credentials was not enough; the ${t.comp} on the others still used the old secret.`,
    q: (t) => `${t.name} ${t.comp} auth failure after rotating credentials`,
    qp: (t) => `calls to ${t.name} started being refused right after we changed the secrets`,
  },
  {
    tag: 'ratelimit',
    title: (t) => `Backing off when ${t.name} ${t.comp} throttles requests`,
    body: (t) => `Bursts made ${t.name} throttle the ${t.comp} ("${t.err}"). Exponential backoff with full jitter, capped at 30 seconds, and a client-side token bucket kept ${t.metric} near zero without losing work.`,
    ptitle: (t) => `${t.name} ${t.comp} throttling: jittered retries`,
    pbody: (t) => `${t.name} started refusing our ${t.comp} traffic in bursts. Retrying with randomised exponential delays and pacing requests on the client removed the refusals.`,
    fail: (t) => `Retrying ${t.name} ${t.comp} calls immediately after throttling made it worse: the synchronized retries caused a second wave.`,
    q: (t) => `${t.name} ${t.comp} throttling backoff retry`,
    qp: (t) => `${t.name} refuses our requests when we send bursts, how to pace them`,
  },
  {
    tag: 'upgrade',
    title: (t) => `${t.name} upgrade changed the ${t.comp} default for ${t.knob}`,
    body: (t) => `A minor ${t.name} upgrade silently changed the default of ${t.knob}, and the ${t.comp} started failing with "${t.err}". Pinning ${t.knob} explicitly in configuration restored the old behaviour; read the changelog for default changes before upgrading.`,
    ptitle: (t) => `After updating ${t.name}, the ${t.comp} behaves differently`,
    pbody: (t) => `Bumping the ${t.name} version altered a default setting of the ${t.comp}. Setting ${t.knob} explicitly instead of relying on defaults brought back the previous behaviour.`,
    fail: (t) => `Rolling ${t.name} back was not possible after the ${t.comp} migrated its data format, so downgrading is not a fix here.`,
    q: (t) => `${t.name} upgrade broke ${t.comp} default ${t.knob}`,
    qp: (t) => `since we updated ${t.name} the ${t.comp} acts differently than before`,
  },
  {
    tag: 'duplicates',
    title: (t) => `${t.name} ${t.comp} processes the same event twice`,
    body: (t) => `Redeliveries made the ${t.name} ${t.comp} handle some events twice, creating duplicate records. An idempotency key stored with a unique constraint, checked before side effects, made processing exactly-once in effect.`,
    ptitle: (t) => `Deduplicating redelivered ${t.name} ${t.comp} events`,
    pbody: (t) => `Because ${t.name} can redeliver, our ${t.comp} created double entries. Recording each event id under a unique constraint before acting removed the doubles.`,
    fail: (t) => `Lowering ${t.knob} to avoid redelivery in ${t.name} did not prevent duplicates in the ${t.comp}; redelivery still happens on failover.`,
    q: (t) => `${t.name} ${t.comp} duplicate events idempotency`,
    qp: (t) => `we get double records whenever ${t.name} sends the same thing again`,
  },
  {
    tag: 'observability',
    title: (t) => `${t.name} ${t.comp} problems hidden by coarse ${t.metric} metrics`,
    body: (t) => `Dashboards averaged ${t.metric} over five minutes and hid short spikes in the ${t.name} ${t.comp}. Alerting on the p99 over one minute and recording the raw counter exposed the bursts that preceded "${t.err}".`,
    ptitle: (t) => `Seeing short ${t.name} ${t.comp} spikes that averages hide`,
    pbody: (t) => `Five-minute averages made the ${t.name} ${t.comp} look healthy. Percentile alerts over a short window revealed the brief bursts behind the failures.`,
    fail: (t) => `Switching ${t.name} monitoring to ${t.alt} did not reveal the ${t.comp} spikes; the averaging window was the problem, not the tool.`,
    q: (t) => `${t.name} ${t.comp} ${t.metric} spikes hidden by averages`,
    qp: (t) => `our ${t.name} graphs look fine but something short keeps going wrong`,
  },
  {
    tag: 'migration',
    title: (t) => `Moving from ${t.alt} to ${t.name}: ${t.comp} settings that do not carry over`,
    body: (t) => `Migrating from ${t.alt} to ${t.name}, the ${t.comp} kept failing with "${t.err}" until ${t.knob} was set: ${t.alt} had no equivalent setting. Run both side by side and compare ${t.metric} before switching traffic.`,
    ptitle: (t) => `${t.alt} to ${t.name} switch: ${t.comp} needs ${t.knob}`,
    pbody: (t) => `Coming from ${t.alt}, the ${t.name} ${t.comp} needs an explicit ${t.knob} that ${t.alt} never had. Shadow traffic on both before cutting over caught it.`,
    fail: (t) => `Copying the ${t.alt} configuration file into ${t.name} as-is left the ${t.comp} misconfigured; the option names differ.`,
    q: (t) => `migrate ${t.alt} to ${t.name} ${t.comp} configuration`,
    qp: (t) => `replacing ${t.alt} with ${t.name}, what breaks in the ${t.comp}`,
  },
];

const NOTE = (t) => ({
  title: `${t.name} ${t.comp} log format for structured logging`,
  body: `We standardised the ${t.name} ${t.comp} logs as JSON lines with a request id field so they join with the rest of our logs. Nothing broke; this is a convention note about naming fields.`,
});

const id = (n) => `lrn_eval${String(n).padStart(4, '0')}`;
const learnings = [];
const queries = [];
let n = 0;
const add = (l) => {
  const lid = id(n++);
  learnings.push({ id: lid, ...l });
  return lid;
};
let q = 0;
for (const [i, t] of TECH.entries()) {
  const kinds = [KINDS[i % 8], KINDS[(i + 3) % 8], KINDS[(i + 5) % 8]];
  for (const [j, k] of kinds.entries()) {
    const base = { category: t.category, tags: [t.name.toLowerCase(), k.tag], task_context: `${t.name} in production` };
    const canonical = add({ ...base, title: k.title(t), body: k.body(t), outcome: 'success' });
    const para = add({ ...base, title: k.ptitle(t), body: k.pbody(t), outcome: 'workaround' });
    const failed = add({ ...base, title: `What did not work: ${k.title(t).toLowerCase()}`, body: k.fail(t), outcome: 'failure' });
    const note = NOTE(t);
    add({ ...base, tags: [t.name.toLowerCase(), 'logging'], title: `${note.title} (${k.tag} team)`, body: note.body, outcome: 'success' });
    // 66 of the 75 problems get a query: both phrasings alternate.
    if ((i * 3 + j) % 25 < 22) {
      const paraphrased = (i + j) % 2 === 1;
      queries.push({
        id: `k${String(++q).padStart(2, '0')}`,
        query: paraphrased ? k.qp(t) : k.q(t),
        paraphrase: paraphrased,
        relevant: { [canonical]: 2, [para]: 2, [failed]: 1 },
      });
    }
  }
}

const dir = new URL('./', import.meta.url);
fs.writeFileSync(new URL('learnings.json', dir), `${JSON.stringify({ source: 'bench/knowledge/generate.js', learnings }, null, 1)}\n`);
fs.writeFileSync(new URL('queries.json', dir), `${JSON.stringify({ source: 'bench/knowledge/generate.js', queries }, null, 1)}\n`);
console.log(`${learnings.length} learnings, ${queries.length} queries`);
