// End to end in a real headless Chromium: a CLI asks for a device code, a person asks for a sign-in link
// on the /device page; the link shows the code and the client, and Approve signs in and approves while
// the CLI polls.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.js';
import { linkIn, post, type Smtp, startSmtp } from './support/identity.js';
import { findChromium, launchChromium, MISSING_CHROMIUM } from './support/chromium.js';

const executablePath = findChromium();
if (!executablePath) console.warn(MISSING_CHROMIUM);

interface DeviceCode {
  device_code: string;
  user_code: string;
  verification_uri_complete: string;
  interval: number;
}

describe.skipIf(!executablePath)('device sign-in in headless Chromium', () => {
  let smtp: Smtp;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-device-shots-'));

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url });
    browser = await launchChromium(executablePath);
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
    fs.rmSync(shots, { recursive: true, force: true });
  });

  // The CLI's side of the protocol, over plain HTTP.
  const requestCode = async (client_name: string): Promise<DeviceCode> =>
    (await post(server, '/auth/device/code', { client_name })).json();
  /** One poll after waiting the interval (on the server's clock). */
  const poll = async (code: DeviceCode) => {
    server.clock.advance(code.interval * 1000);
    const res = await post(server, '/auth/device/token', { device_code: code.device_code });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('signs in by magic link on the page, shows the code and client, and hands the key to the CLI once after Approve', async () => {
    const code = await requestCode('axle CLI on e2e-host');

    // The person opens the link the CLI printed; not signed in, the page offers the email sign-in.
    await page.goto(code.verification_uri_complete);
    await expect(page.getByRole('heading', { name: 'Connect a device' }).isVisible()).resolves.toBe(true);
    await page.getByLabel('Email address').fill('person@example.com');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    expect((await poll(code)).body.error).toBe('authorization_pending');

    // The link from the mail opens the approval itself: the code to compare, the client, and one
    // button that signs the browser in as it approves (no separate sign-in or continue step).
    await page.goto(linkIn(smtp.lastTo('person@example.com')!).href);
    await page.getByRole('heading', { name: 'Approve this device?' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/device');
    expect(await page.getByRole('button').allTextContents()).toEqual(['Deny', 'Approve']);
    expect(await page.getByTestId('user-code').textContent()).toBe(code.user_code);
    expect(await page.getByTestId('client-name').textContent()).toBe('axle CLI on e2e-host');
    const shot = path.join(shots, 'device-approve.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(fs.statSync(shot).size).toBeGreaterThan(1000);
    expect((await poll(code)).body.error).toBe('authorization_pending');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();

    const granted = await poll(code);
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual({
      api_key: expect.stringMatching(/^axl_/),
      account_id: expect.stringMatching(/^acc_/),
      email: 'person@example.com',
    });
    // Exactly once: the next poll is refused (invalid_grant: the key was already handed out).
    const again = await poll(code);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');

    // The delivered key works.
    const res = await fetch(`${server.url}/account/settings`, {
      headers: { 'x-api-key': granted.body.api_key as string },
    });
    expect(res.status).toBe(200);
  });

  it('signs in with the button after a mail scanner fetched the link with HEAD and GET', async () => {
    expect((await post(server, '/auth/magic-link', { email: 'scanned@example.com' })).status).toBe(200);
    const link = linkIn(smtp.lastTo('scanned@example.com')!);
    for (const method of ['HEAD', 'GET']) {
      const res = await fetch(link, {
        method,
        headers: { accept: 'text/html,*/*;q=0.8', 'user-agent': 'LinkScanner/1.0' },
      });
      expect(res.status).toBe(200);
    }
    const context = await browser.newContext();
    try {
      const fresh = await context.newPage();
      await fresh.goto(link.href);
      expect(await fresh.getByRole('button').count()).toBe(1);
      await fresh.getByRole('button', { name: 'Sign in' }).click();
      await fresh.getByRole('heading', { name: 'Signed in' }).waitFor();
      expect(await fresh.textContent('body')).toContain('scanned@example.com');
      // Back and submitting again: the link worked once.
      await fresh.goBack();
      await fresh.getByRole('button', { name: 'Sign in' }).click();
      await fresh.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('ends in access_denied when the person clicks Deny', async () => {
    const code = await requestCode('unknown script');
    await page.goto(code.verification_uri_complete); // still signed in from the first test
    await page.getByRole('heading', { name: 'Approve this device?' }).waitFor();
    expect(await page.getByTestId('client-name').textContent()).toBe('unknown script');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Request denied' }).waitFor();
    const denied = await poll(code);
    expect(denied.status).toBe(400);
    expect(denied.body.error).toBe('access_denied');
  });

  it('signs out from the approval page, which then offers the sign-in again for the same code', async () => {
    const code = await requestCode('shared laptop');
    await page.goto(code.verification_uri_complete); // still signed in from the first test
    await page.getByRole('heading', { name: 'Approve this device?' }).waitFor();
    expect(await page.getByText('Not person@example.com?').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    expect(await page.getByRole('button').allTextContents()).toEqual(['Email me a sign-in link']);
    expect(new URL(page.url()).searchParams.get('user_code')).toBe(code.user_code);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('axle_session');
    expect((await poll(code)).body.error).toBe('authorization_pending');
  });

  it('cannot be framed by another site', async () => {
    const code = await requestCode('framed');
    // Another origin on loopback (same address space, so only the page's own headers can stop the frame).
    const attacker = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<iframe src="${code.verification_uri_complete}" width="600" height="400"></iframe>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`); // waits for load, frames included
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      // frame-ancestors 'none' / X-Frame-Options DENY: Chromium refuses to render it and shows its error page.
      expect(frame.url()).toMatch(/^chrome-error:/);
      expect(await frame.content()).toContain('ERR_BLOCKED_BY_RESPONSE');
      expect(await frame.getByRole('button').count()).toBe(0);
    } finally {
      await new Promise((resolve) => attacker.close(resolve));
    }
  });

  // A mailed link is opened from a webmail, another site: the browser must still send the cookie that binds the link
  // to it, and a link a stranger asked for (with a script, for the stranger's own code) must not open the approval.
  it('opens the approval from a link clicked on another site only in the browser that asked for it', async () => {
    const links: Record<string, string> = {};
    const webmail = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<a href="${links[req.url!.slice(1)] ?? ''}">open</a>`);
    });
    await new Promise<void>((resolve) => webmail.listen(0, resolve)); // every address, so localhost reaches it
    // localhost and 127.0.0.1 are different sites, so the click is a cross-site navigation.
    const inbox = (name: string) => `http://localhost:${(webmail.address() as AddressInfo).port}/${name}`;
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      const mine = await requestCode('my laptop');
      await tab.goto(mine.verification_uri_complete);
      await tab.getByLabel('Email address').fill('clicker@example.com');
      await tab.getByRole('button', { name: 'Email me a sign-in link' }).click();
      await tab.getByRole('heading', { name: 'Check your email' }).waitFor();
      links.mine = linkIn(smtp.lastTo('clicker@example.com')!).href;

      const theirs = await requestCode('Axle web sign-in');
      const asked = await fetch(`${server.url}/device/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'clicker@example.com', user_code: theirs.user_code }).toString(),
      });
      expect(asked.status).toBe(200);
      links.theirs = linkIn(smtp.lastTo('clicker@example.com')!).href;

      await tab.goto(inbox('theirs'));
      await tab.getByRole('link', { name: 'open' }).click();
      // The plain sign-in page, not the stranger's approval; its button signs in and goes no further.
      await tab.getByRole('heading', { name: 'Sign in to Axle' }).waitFor();
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByRole('heading', { name: 'Signed in' }).waitFor();
      expect(new URL(tab.url()).pathname).toBe('/auth/verify');
      expect((await poll(theirs)).body.error).toBe('authorization_pending');

      await tab.goto(inbox('mine'));
      await tab.getByRole('link', { name: 'open' }).click();
      await tab.getByRole('heading', { name: 'Approve this device?' }).waitFor();
      expect(await tab.getByTestId('user-code').textContent()).toBe(mine.user_code);
      await tab.getByRole('button', { name: 'Approve' }).click();
      await tab.getByRole('heading', { name: 'Device connected' }).waitFor();
      expect((await poll(mine)).status).toBe(200);
    } finally {
      await context.close();
      await new Promise((resolve) => webmail.close(resolve));
    }
  });
});
