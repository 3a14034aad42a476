import type { PendingDevice } from '../services/device-auth.js';
import { esc, page } from './layout.js';

/**
 * The approval page for a code: where a sign-in started on the device page continues (`/device?user_code=…`),
 * with `ask`, the digest binding the link to the browser that asked for it (http/device-ask.ts).
 */
export const devicePagePath = (userCode: string, ask?: string) =>
  `/device?user_code=${encodeURIComponent(userCode)}${ask ? `&ask=${encodeURIComponent(ask)}` : ''}`;
export const isDevicePage = (path: string) => path.startsWith('/device?user_code=');

const notice = (text?: string, kind: 'error' | 'info' = 'error') =>
  text ? `<p class="notice ${kind}" role="status">${esc(text)}</p>` : '';
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${esc(value)}">`;

/** `text` beside a button that signs this browser out (another person can then sign in; back to `userCode`'s page). */
const signOut = (text: string, csrf: string, userCode?: string) =>
  `<form class="sign-out" method="post" action="/device/sign-out"><span class="muted">${esc(text)}</span>
${hidden('csrf', csrf)}${userCode ? hidden('user_code', userCode) : ''}<button type="submit">Sign out</button></form>`;

/** Not signed in: the magic-link form; the link brings the person back here with the code. */
export function deviceSignInPage(userCode: string | undefined, error?: string): string {
  return page(
    'Sign in to connect a device',
    `<h1>Connect a device</h1>
<p>A command-line tool or agent asked to sign in to your Axle account. We will email you a link; it opens the approval.</p>
${notice(error)}
<form method="post" action="/device/sign-in">
${userCode ? hidden('user_code', userCode) : ''}
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<div class="actions"><button class="primary" type="submit">Email me a sign-in link</button></div>
</form>`,
  );
}

export function deviceCheckEmailPage(): string {
  return page(
    'Check your email',
    `<h1>Check your email</h1>
<p>If that address can receive email, a sign-in link is on its way. Open it in this browser to approve the device.</p>`,
  );
}

/** Signed in, no (valid) code yet; `csrf` signs out. */
export function deviceEnterCodePage(email: string, csrf: string, error?: string): string {
  return page(
    'Enter the code',
    `<h1>Connect a device</h1>
${signOut(`Signed in as ${email}`, csrf)}
${notice(error)}
<form method="get" action="/device">
<label for="user_code">Code shown by your device</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="XXXX-XXXX" required>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>`,
  );
}

/**
 * The decision: the code to compare with the terminal, who is asking, approve or deny. The form proves
 * it came from this page by the CSRF token of the signed-in session, or, opened from a sign-in link, by
 * that link's token, which the button uses to sign in as it decides.
 */
export function deviceConfirmPage(
  email: string,
  device: PendingDevice,
  proof: { csrf: string } | { link: string },
): string {
  const proofField = 'csrf' in proof ? hidden('csrf', proof.csrf) : hidden('link', proof.link);
  return page(
    'Approve this device?',
    `<h1>Approve this device?</h1>
<p>Check that this code matches the one shown in your terminal.</p>
<div class="code" data-testid="user-code">${esc(device.user_code)}</div>
<dl><dt>Client</dt><dd data-testid="client-name">${esc(device.client_name)}</dd><dt>Account</dt><dd>${esc(email)}</dd></dl>
${'csrf' in proof ? signOut(`Not ${email}?`, proof.csrf, device.user_code) : ''}
<p class="muted">Approving ${'link' in proof ? 'signs you in and ' : ''}creates an API key with full access for this client. You can revoke it later from your dashboard.</p>
<form method="post" action="/device">
${hidden('user_code', device.user_code)}${proofField}
<div class="actions"><button class="danger" type="submit" name="decision" value="deny">Deny</button><button class="primary" type="submit" name="decision" value="approve">Approve</button></div>
</form>`,
  );
}

export function deviceDonePage(decision: 'approve' | 'deny'): string {
  return decision === 'approve'
    ? page('Device connected', '<h1>Device connected</h1><p>You can close this tab and return to your terminal.</p>')
    : page('Request denied', '<h1>Request denied</h1><p>The device was not given access. You can close this tab.</p>');
}

export function deviceErrorPage(title: string, message: string): string {
  return page(title, `<h1>${esc(title)}</h1>${notice(message)}<p><a href="/device">Start over</a></p>`);
}
