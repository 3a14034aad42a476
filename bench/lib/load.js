// autocannon load shared by the bench phases.
import autocannon from 'autocannon';

/** The figures the bench reports from an autocannon result. */
export function summary(r) {
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    bad: r.non2xx + r.errors + r.timeouts,
  };
}

/**
 * POSTs `{query, limit}` to `route` at full speed on `connections` connections for `seconds`, rotating
 * through `queries`; `distinct` counts the queries sent.
 */
export function rotatingQueryLoad(url, route, queries, { limit, seconds, connections }) {
  let next = 0;
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: route,
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ query: queries[next++ % queries.length], limit }) }),
      },
    ],
  }).then((r) => ({ ...summary(r), distinct: Math.min(next, queries.length) }));
}
