// The CLI against a server that is not the one meant (a typo in --server, a hostile host): what it sends is checked
// before it is shown, opened, saved or waited on.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signInLink } from '../src/lib/device-login.js';
import { axle, tempHome, writeAxleConfig } from './helpers.js';

/** What a terminal would act on or reorder: C0/C1 controls (ESC starts escape sequences) and bidi formatting. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const ESCAPES = '\u001b]0;owned\u0007\u001b[2J\u202e';

describe('signInLink', () => {
  it.each([
    ['http://127.0.0.1:8402/device?user_code=ABCDEFGH', 'http://127.0.0.1:8402/device?user_code=ABCDEFGH'],
    ['https://axle.example.com/device', 'https://axle.example.com/device'],
    ['https://axle.example.com/device?x=1 2', 'https://axle.example.com/device?x=1%202'],
  ])('keeps the http(s) link %j', (text, href) => {
    expect(signInLink(text)).toBe(href);
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'ms-settings:privacy',
    'ssh://host',
    'not a url',
    '',
    42,
    undefined,
  ])('refuses %j', (text) => {
    expect(signInLink(text)).toBeUndefined();
  });
});

describe('axle against a hostile server', () => {
  let server: http.Server;
  let url: string;
  /** Route -> [status, body] the stand-in answers with. */
  let answers: Record<string, [number, unknown]>;
  /** Route -> requests the stand-in got. */
  let asked: Record<string, number>;
  /** Route -> MiB of one JSON string the stand-in answers with instead (a body no Axle answer comes near). */
  let floods: Record<string, number>;
  /** Route -> the answer to a request with this query (before `answers`). */
  let queried: Record<string, (query: URLSearchParams) => [number, unknown]>;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      const route = `${req.method} ${new URL(req.url ?? '/', 'http://stand-in').pathname}`;
      asked[route] = (asked[route] ?? 0) + 1;
      const flood = floods[route];
      if (flood !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const mib = Buffer.alloc(1024 * 1024, 0x61);
        let sent = 0;
        const pump = () => {
          while (sent < flood) {
            sent++;
            if (!res.write(mib)) return;
          }
          res.end();
        };
        res.on('drain', pump);
        res.write('{"device_code": "');
        return pump();
      }
      const [status, body] = queried[route]?.(new URL(req.url ?? '/', 'http://stand-in').searchParams) ??
        answers[route] ?? [404, { error: 'Not found' }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    answers = {};
    asked = {};
    floods = {};
    queried = {};
  });

  it('refuses a sign-in link that is not http(s), and shows, opens and waits on nothing', async () => {
    answers['POST /auth/device/code'] = [
      200,
      {
        device_code: 'd',
        user_code: `ABCD-EFGH${ESCAPES}`,
        verification_uri: 'file:///etc/passwd',
        verification_uri_complete: 'javascript:alert(1)',
        expires_in: 1e12,
        interval: 1e9,
      },
    ];
    const home = tempHome();
    const out = await axle(['login', '--server', url, '--no-browser'], { home });
    expect(out.code).toBe(1);
    // oclif wraps long messages (`\n ›   `).
    expect(out.stderr.replace(/\s*\n\s*›?\s*/g, ' ')).toContain(
      'did not answer the sign-in request as an Axle server does',
    );
    expect(out.stderr).not.toContain('passwd');
    expect(out.stderr + out.stdout).not.toMatch(HIDDEN);
    expect(fs.existsSync(path.join(home, '.axle/config.json'))).toBe(false);
  });

  it("shows the server's code and account without escape sequences, and saves them so", async () => {
    answers['POST /auth/device/code'] = [
      200,
      {
        device_code: 'd',
        user_code: `ABCD-EFGH${ESCAPES}`,
        verification_uri: `${url}/device`,
        expires_in: 30,
        interval: 0.001,
      },
    ];
    answers['POST /auth/device/token'] = [
      200,
      { api_key: `axl_${'a'.repeat(43)}`, account_id: `acc_1${ESCAPES}`, email: `me@example.com${ESCAPES}` },
    ];
    const home = tempHome();
    const out = await axle(['login', '--server', url, '--no-browser'], { home });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('Your sign-in code: ABCD-EFGH');
    expect(out.stdout).toContain('as me@example.com');
    expect(out.stderr + out.stdout).not.toMatch(HIDDEN);
    const saved = JSON.parse(fs.readFileSync(path.join(home, '.axle/config.json'), 'utf8'));
    expect(saved).toMatchObject({ server: url, email: expect.stringMatching(/^me@example\.com/) });
    expect(`${saved.email} ${saved.account_id}`).not.toMatch(HIDDEN);
  });

  it('keeps polling at least a second apart when the server asks to slow down to 0 s', async () => {
    answers['POST /auth/device/code'] = [
      200,
      { device_code: 'd', user_code: 'ABCD-EFGH', verification_uri: `${url}/device`, expires_in: 3, interval: 1 },
    ];
    answers['POST /auth/device/token'] = [400, { error: 'slow_down', interval: 0 }];
    const out = await axle(['login', '--server', url, '--no-browser'], { home: tempHome() });
    expect(out.code).toBe(3);
    // One poll a second for the 3 s the code lives (an interval of 0 would poll as fast as the server answers).
    expect(asked['POST /auth/device/token']).toBeGreaterThanOrEqual(1);
    expect(asked['POST /auth/device/token']).toBeLessThanOrEqual(4);
  });

  it('refuses an approved sign-in whose key could not be sent as a header', async () => {
    answers['POST /auth/device/code'] = [
      200,
      { device_code: 'd', user_code: 'ABCD-EFGH', verification_uri: `${url}/device`, expires_in: 30, interval: 1 },
    ];
    answers['POST /auth/device/token'] = [200, { api_key: 'axl_x\r\nX-Evil: 1', account_id: 'acc_1', email: 'a@b.c' }];
    const home = tempHome();
    const out = await axle(['login', '--server', url, '--no-browser'], { home });
    expect(out.code).toBe(1);
    expect(fs.existsSync(path.join(home, '.axle/config.json'))).toBe(false);
  });

  it("shows a server's error text on one line, without escape sequences", async () => {
    answers['POST /extract/consent'] = [500, { error: `boom${ESCAPES}\nsecond line`, code: 'x'.repeat(5_000) }];
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: `axl_${'0'.repeat(43)}`, email: 'a@b.c' });
    const out = await axle(['consent', 'grant'], { home });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('boom');
    expect(out.stderr).toContain('second line');
    expect(out.stderr).not.toMatch(HIDDEN);
    expect(out.stderr.length).toBeLessThan(2_000);
  });

  it("lists held items and reports decisions in the server's words without escape sequences", async () => {
    const row = { lane: 'needs_your_eyes', flags: [], review_reason: [], quality_score: null };
    answers['GET /account/pending/summary'] = [
      200,
      {
        pending_count: 1,
        lanes: { [`needs_your_eyes${ESCAPES}`]: 1 },
        flags: { [`injection${ESCAPES}`]: 1 },
        approvable_count: 0,
        default_threshold: 0.8,
        rows: [{ ...row, id: `lrn_1${ESCAPES}`, title: `Fix the build${ESCAPES}\nrm -rf /` }],
      },
    ];
    answers['POST /account/pending/reject'] = [
      200,
      { results: [{ id: 'lrn_1', ok: false, code: 'NOT_FOUND', error: `gone${ESCAPES}` }] },
    ];
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: `axl_${'0'.repeat(43)}`, email: 'a@b.c' });
    const summary = await axle(['review'], { home });
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stdout).toContain('Lanes: needs_your_eyes');
    expect(summary.stdout).not.toMatch(HIDDEN);
    const list = await axle(['review', '--list'], { home });
    expect(list.code, list.stderr).toBe(0);
    // Escape sequences lose their ESC (the rest is inert text) and the line break becomes a space.
    expect(list.stdout).toMatch(/Fix the build\S* rm -rf \//);
    expect(list.stdout).not.toMatch(HIDDEN);
    const reject = await axle(['review', 'reject', 'lrn_1'], { home });
    expect(reject.stdout).toContain('not rejected lrn_1: NOT_FOUND gone');
    expect(reject.stdout + reject.stderr).not.toMatch(HIDDEN);
  });

  // Found by reading: approve looked the flags of the items it could not approve up in the summary's first 200 rows
  // only, and wrote the server's words to the terminal as they came.
  it("names a flagged item's flags whatever its place in the queue, without escape sequences", async () => {
    const row = { lane: 'needs_your_eyes', review_reason: ['injection'], quality_score: null, title: 'x' };
    // Like the server: a summary of 250 held items shows the flagged one only when asked for by id.
    queried['GET /account/pending/summary'] = (query) => [
      200,
      {
        pending_count: 250,
        lanes: {},
        flags: {},
        approvable_count: 0,
        default_threshold: 0.8,
        rows: query.get('ids') === 'lrn_250' ? [{ ...row, id: 'lrn_250', flags: [`injection${ESCAPES}`] }] : [],
      },
    ];
    answers['POST /account/pending/approve'] = [
      200,
      {
        results: [{ id: 'lrn_250', ok: false, code: 'flags_not_acknowledged', error: 'flagged' }],
        succeeded: 0,
        failed: 1,
      },
    ];
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: `axl_${'0'.repeat(43)}`, email: 'a@b.c' });
    const r = await axle(['review', 'approve', 'lrn_250'], { home });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/lrn_250 is flagged: injection\S*/);
    expect(r.stderr).not.toMatch(HIDDEN);
  });

  it('stops reading an answer far larger than any Axle answer, and says so', async () => {
    floods['POST /auth/device/code'] = 64;
    const home = tempHome();
    const out = await axle(['login', '--server', url, '--no-browser'], { home });
    expect(out.code).toBe(1);
    expect(out.stderr.replace(/\s*\n\s*›?\s*/g, ' ')).toContain(`${url} sent an answer larger than`);
    expect(fs.existsSync(path.join(home, '.axle/config.json'))).toBe(false);
  });

  it('ends sign-in with exit 1 when the code request is answered with something other than a JSON object', async () => {
    answers['POST /auth/device/code'] = [200, '<html>a captive portal</html>'];
    const out = await axle(['login', '--server', url, '--no-browser'], { home: tempHome() });
    expect(out.code).toBe(1);
    expect(out.stderr.replace(/\s*\n\s*›?\s*/g, ' ')).toContain(
      'did not answer the sign-in request as an Axle server does',
    );
  });

  it('says so when the sign-in page is on another host than the server signed in to', async () => {
    const code = { device_code: 'd', user_code: 'ABCD-EFGH', expires_in: 30, interval: 1 };
    answers['POST /auth/device/token'] = [400, { error: 'access_denied' }];
    // The device page of some other Axle (whose code the server's operator asked for), or a look-alike host.
    answers['POST /auth/device/code'] = [
      200,
      { ...code, verification_uri: 'https://axle.example.com/device?user_code=WXYZ-BCDF' },
    ];
    const other = await axle(['login', '--server', url, '--no-browser'], { home: tempHome() });
    const oneLine = (t: string) => t.replace(/\s*\n\s*›?\s*/g, ' ');
    expect(oneLine(other.stderr)).toContain(
      `That page is on axle.example.com, not on ${new URL(url).host}, the server you are signing in to`,
    );

    // The same machine under its other loopback name (a local server's page says localhost) is the same host.
    answers['POST /auth/device/code'] = [
      200,
      { ...code, verification_uri: `http://localhost:${new URL(url).port}/device` },
    ];
    const same = await axle(['login', '--server', url, '--no-browser'], { home: tempHome() });
    expect(same.stderr).toContain('Your sign-in code: ABCD-EFGH');
    expect(same.stderr).not.toContain('That page is on');
  });
  // Found by reading: every answer but 200 was "the server refused the saved key: run axle login", a 503 or a 429
  // too, which sent a signed-in user to sign in again for a server that was only busy.
  it('tells a key the server refuses from a server too busy or failing to check it', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: `axl_${'a'.repeat(43)}`, email: 'me@example.com' });
    answers['GET /health'] = [200, { status: 'ok' }];
    for (const status of [429, 500, 503]) {
      answers['GET /account/settings'] = [status, { error: 'Busy' }];
      const who = await axle(['whoami'], { home });
      expect(who.code, who.stderr).toBe(1);
      expect(who.stderr).toContain(`could not check the saved key (HTTP ${status})`);
      expect(who.stderr).not.toContain('axle login');
      const status_ = await axle(['status', '--json'], { home });
      const key = (JSON.parse(status_.stdout) as { checks: Array<{ name: string; detail: string }> }).checks.find(
        (c) => c.name === 'key',
      );
      expect(key?.detail).toBe(`not checked: the server answered HTTP ${status}`);
    }
    for (const status of [401, 403]) {
      answers['GET /account/settings'] = [status, { error: 'Unauthorized' }];
      const who = await axle(['whoami'], { home });
      expect(who.code).toBe(3);
      expect(who.stderr).toContain(`The server refused the saved key (HTTP ${status})`);
    }
  });
  // Found by reading: setup took any answer but 200 to its key check for a refused key and started a new sign-in,
  // minting a second key while the first still worked.
  it('setup keeps a saved key the server is too busy to check: exit 1, no new sign-in', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: `axl_${'a'.repeat(43)}`, email: 'me@example.com' });
    for (const status of [429, 503]) {
      answers['GET /account/settings'] = [status, { error: 'Busy' }];
      const r = await axle(['setup', '--server', url, '--no-browser'], { home });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`could not check the saved key (HTTP ${status})`);
    }
    expect(asked['POST /auth/device/code']).toBeUndefined();
    // A refused key still starts a sign-in (here one the stand-in answers 404, so it fails).
    answers['GET /account/settings'] = [401, { error: 'Unauthorized' }];
    await axle(['setup', '--server', url, '--no-browser'], { home });
    expect(asked['POST /auth/device/code']).toBe(1);
  });
  // Found by reading: revoke asked the server first and only then switched local capture off, so with the server
  // down or failing, capture stayed on: the one thing the user meant to stop.
  it('consent revoke switches local capture off even when the server fails or is not there', async () => {
    const capturing = (server = url) => {
      const home = tempHome();
      writeAxleConfig(home, { server, api_key: `axl_${'a'.repeat(43)}`, capture: { enabled: true, since: 'x' } });
      return home;
    };
    const captureOn = (home: string) =>
      JSON.parse(fs.readFileSync(path.join(home, '.axle/config.json'), 'utf8')).capture.enabled;
    answers['POST /extract/consent'] = [503, { error: 'Service unavailable' }];
    const failing = capturing();
    const r = await axle(['consent', 'revoke'], { home: failing });
    expect(r.code).toBe(1);
    expect(r.stderr.replace(/\s*\n\s*›?\s*/g, ' ')).toContain('Local capture is off; hooks now do nothing.');
    expect(captureOn(failing)).toBe(false);
    // Nothing listens on the discard port.
    const gone = capturing('http://127.0.0.1:9');
    expect((await axle(['consent', 'revoke'], { home: gone })).code).toBe(4);
    expect(captureOn(gone)).toBe(false);
  });
});
