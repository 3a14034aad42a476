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
 * POSTs `{query: queryAt(i), limit}` to `route` at full speed on `connections` connections for `seconds`,
 * i counting the requests sent, with `headers` (or `headers(i)`) besides the content type; resolves to the figures
 * and `sent`, that count.
 */
export function queryLoad(url, route, queryAt, { limit, seconds, connections, headers = {} }) {
  const headersAt = typeof headers === 'function' ? headers : () => headers;
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
        setupRequest: (req) => {
          const i = next++;
          return {
            ...req,
            headers: { ...req.headers, ...headersAt(i) },
            body: JSON.stringify({ query: queryAt(i), limit }),
          };
        },
      },
    ],
  }).then((r) => ({ ...summary(r), sent: next }));
}

/**
 * POSTs `{query, limit}` to `route` at full speed on `connections` connections for `seconds`, rotating
 * through `queries`; `distinct` counts the queries sent.
 */
export async function rotatingQueryLoad(url, route, queries, options) {
  const { sent, ...figures } = await queryLoad(url, route, (i) => queries[i % queries.length], options);
  return { ...figures, distinct: Math.min(sent, queries.length) };
}
