// A loopback stand-in for an MCP registry speaking the official v0.1 API: GET /v0.1/servers (cursor,
// limit, updated_since, include_deleted) and GET /v0.1/servers/{name}/versions/latest. Every body it
// serves is validated against the registry's published OpenAPI (fixtures/mcp-registry/openapi.yaml);
// `invalid` lists what failed, so a test can assert the stand-in spoke the real wire format.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

const OPENAPI = new URL('./fixtures/mcp-registry/openapi.yaml', import.meta.url);

export interface StandinVersion {
  name: string;
  version: string;
  description: string;
  isLatest: boolean;
  status: 'active' | 'deprecated' | 'deleted';
  updatedAt: string;
  title?: string;
  repository?: string;
  packages?: unknown[];
  remotes?: unknown[];
  websiteUrl?: string;
  /** Rewrites the entry as served, to play a registry that serves a malformed one. */
  malform?: (entry: { server: Record<string, unknown>; _meta?: unknown }) => unknown;
}

function validators() {
  const doc = parseYaml(fs.readFileSync(OPENAPI, 'utf8')) as { $id: string };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc);
  const get = (name: string) => ajv.getSchema(`${doc.$id}#/components/schemas/${name}`)!;
  return { list: get('ServerList'), one: get('ServerResponse'), ajv };
}

export async function startRegistryStandIn() {
  const versions = new Map<string, StandinVersion>();
  const requests: string[] = [];
  const invalid: string[] = [];
  /** Requests of /v0.1/servers to answer with 500 (counted from 1 since the last `failListPage`). */
  let failAt: number | undefined;
  /** A raw body (status 200) for the next list request, to play a registry that misbehaves. */
  let rawNext: string | undefined;
  /** A raw body (status 200) for the next /versions/latest request. */
  let rawLatest: string | undefined;
  /** Requests of /v0.1/servers that send half a body and then nothing (counted like `failAt`). */
  let stallAt: number | undefined;
  /** A Location the next list requests redirect to (302), and how many of them do. */
  let redirectNext: string | undefined;
  let redirects = 0;
  /** The last list page points back at the first instead of ending. */
  let cycle = false;
  let listCalls = 0;
  const { list, one, ajv } = validators();

  const response = (v: StandinVersion) => {
    const entry = wellFormed(v);
    return v.malform ? v.malform(entry) : entry;
  };
  const wellFormed = (v: StandinVersion) => ({
    server: {
      name: v.name,
      description: v.description,
      version: v.version,
      ...(v.title && { title: v.title }),
      ...(v.repository && { repository: { url: v.repository, source: 'github' } }),
      ...(v.packages && { packages: v.packages }),
      ...(v.remotes && { remotes: v.remotes }),
      ...(v.websiteUrl && { websiteUrl: v.websiteUrl }),
    } as Record<string, unknown>,
    _meta: {
      'io.modelcontextprotocol.registry/official': {
        status: v.status,
        publishedAt: '2025-09-01T00:00:00Z',
        updatedAt: v.updatedAt,
        isLatest: v.isLatest,
      },
    },
  });

  const send = (res: http.ServerResponse, status: number, body: unknown, check?: typeof list) => {
    if (check && !check(body)) invalid.push(ajv.errorsText(check.errors));
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    requests.push(`${url.pathname}${url.search}`);
    if (url.pathname === '/v0.1/servers') {
      listCalls += 1;
      if (redirectNext !== undefined && redirects > 0) {
        redirects -= 1;
        return res.writeHead(302, { location: redirectNext }).end();
      }
      if (failAt === listCalls) return send(res, 500, { error: 'internal error' });
      if (stallAt === listCalls)
        return res.writeHead(200, { 'content-type': 'application/json' }).write('{"servers": [');
      if (rawNext !== undefined) {
        const body = rawNext;
        rawNext = undefined;
        return res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      }
      const since = url.searchParams.get('updated_since');
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 30), 100);
      const includeDeleted = since !== null || url.searchParams.get('include_deleted') === 'true';
      const all = [...versions.values()]
        .filter((v) => includeDeleted || v.status !== 'deleted')
        .filter((v) => since === null || Date.parse(v.updatedAt) >= Date.parse(since))
        .sort((a, b) => `${a.name}\0${a.version}`.localeCompare(`${b.name}\0${b.version}`));
      const from = Number(Buffer.from(url.searchParams.get('cursor') ?? 'MA', 'base64url').toString() || '0');
      const page = all.slice(from, from + limit);
      const next =
        from + limit < all.length
          ? Buffer.from(String(from + limit)).toString('base64url')
          : cycle
            ? Buffer.from('0').toString('base64url')
            : undefined;
      return send(
        res,
        200,
        { servers: page.map(response), metadata: { count: page.length, ...(next && { nextCursor: next }) } },
        list,
      );
    }
    const m = /^\/v0\.1\/servers\/([^/]+)\/versions\/latest$/.exec(url.pathname);
    if (m) {
      if (rawLatest !== undefined) {
        const body = rawLatest;
        rawLatest = undefined;
        return res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      }
      const name = decodeURIComponent(m[1]!);
      const latest = [...versions.values()].find((v) => v.name === name && v.isLatest && v.status !== 'deleted');
      return latest ? send(res, 200, response(latest), one) : send(res, 404, { error: 'Server not found' });
    }
    send(res, 404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    invalid,
    clear() {
      versions.clear();
      requests.length = 0;
      failAt = undefined;
      stallAt = undefined;
      cycle = false;
      redirectNext = undefined;
      redirects = 0;
      rawNext = undefined;
      rawLatest = undefined;
    },
    put(v: StandinVersion) {
      versions.set(`${v.name}@${v.version}`, v);
    },
    get(name: string, version: string) {
      return versions.get(`${name}@${version}`);
    },
    /** The next list request answers `body` as it is. */
    answerNextListWith(body: string) {
      rawNext = body;
    },
    /** The next `times` list requests redirect (302) to `location`. */
    redirectNextListTo(location: string, times = 1) {
      redirectNext = location;
      redirects = times;
    },
    /** The next /versions/latest request answers `body` as it is. */
    answerNextLatestWith(body: string) {
      rawLatest = body;
    },
    /** The `n`th list request from now answers 500. */
    failListPage(n: number) {
      listCalls = 0;
      failAt = n;
    },
    /** The `n`th list request from now sends its headers and the start of a body, then stalls. */
    stallListPage(n: number) {
      listCalls = 0;
      stallAt = n;
    },
    /** The last list page names the first page's cursor as the next one. */
    cycleCursors() {
      cycle = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The server's first `registry sync` log record, waited for at most `ms` (undefined when none came). */
export async function firstSyncLog(
  server: { logs: string[] },
  ms: number,
): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + ms;
  while (!server.logs.some((l) => JSON.parse(l).msg === 'registry sync') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'registry sync');
}
