import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { startTestServer, type TestServer } from './server.js';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

/** A real SMTP server on loopback that keeps every message it accepts, parsed. */
export async function startSmtp() {
  const inbox: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          inbox.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
          });
          callback();
        },
        (err) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    /**
     * The newest message to `email`. The server answers POST /auth/magic-link only after the SMTP
     * server accepted the message (and onData stored it), so no waiting is needed.
     */
    lastTo(email: string): ReceivedMail | undefined {
      return inbox.filter((m) => m.to.includes(email)).pop();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type Smtp = Awaited<ReturnType<typeof startSmtp>>;

/** A test server that mails sign-in links through its own SMTP server; `stop` shuts both down. */
export async function startMailingServer(env: Record<string, string> = {}) {
  const smtp = await startSmtp();
  const server = await startTestServer({ AXLE_SMTP_URL: smtp.url, ...env });
  return {
    smtp,
    server,
    stop: async () => {
      await server.stop();
      await smtp.close();
    },
  };
}

/** The sign-in link in a received message. */
export function linkIn(mail: ReceivedMail): URL {
  const m = /https?:\/\/\S+\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(mail.text);
  if (!m) throw new Error(`no sign-in link in: ${mail.text}`);
  return new URL(m[0]);
}

export const post = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/**
 * A browser following a sign-in link: it opens the page (which consumes nothing), then presses its
 * button, a form POST of the token from the page's own origin. Returns the POST's response.
 */
export async function pressSignIn(
  link: URL | string,
  origin = new URL(link).origin,
  url = new URL(link),
): Promise<Response> {
  const page = await fetch(url, { headers: { accept: 'text/html' } });
  const token = /name="token" value="([^"]+)"/.exec(await page.text())?.[1];
  if (page.status !== 200 || !token) throw new Error(`no sign-in button: ${page.status}`);
  return fetch(new URL('/auth/verify', url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin },
    body: new URLSearchParams({ token }).toString(),
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The whole magic-link sign-in over real SMTP: request, receive, follow the link. Returns the session JWT. */
export async function signIn(server: TestServer, smtp: Smtp, email: string): Promise<string> {
  const before = smtp.inbox.length;
  const res = await post(server, '/auth/magic-link', { email });
  if (res.status !== 200) throw new Error(`magic-link: ${res.status} ${await res.text()}`);
  const mail = smtp.lastTo(email);
  if (!mail || smtp.inbox.indexOf(mail) < before) throw new Error('no new sign-in mail');
  const verify = await fetch(linkIn(mail));
  if (verify.status !== 200) throw new Error(`verify: ${verify.status} ${await verify.text()}`);
  return ((await verify.json()) as { token: string }).token;
}
