import {
  DEVICE_AUTH,
  DeviceCodeRequest,
  DeviceCodeResponse,
  DeviceTokenError,
  DeviceTokenRequest,
  DeviceTokenResponse,
  MagicLinkRequest,
  z,
} from '@axle/sdk';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import { clientIp } from '../http/client-ip.js';
import { csrfToken, csrfValid, refuseCrossSite, sameOrigin } from '../http/csrf.js';
import { askedHere, askFromThisBrowser } from '../http/device-ask.js';
import { DomainError } from '../domain/errors.js';
import { renderDomainError } from '../http/error-status.js';
import { type Api, reply } from '../http/route.js';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from '../http/session-cookie.js';
import {
  deviceCheckEmailPage,
  deviceConfirmPage,
  deviceDonePage,
  deviceEnterCodePage,
  deviceErrorPage,
  devicePagePath,
  deviceSignInPage,
} from '../web/device.js';
import { PAGE_HEADERS } from '../web/layout.js';

const NO_STORE = { 'Cache-Control': 'no-store' };
const html = (status: number, body: string) => reply(status, body, { ...PAGE_HEADERS });

const OTHER_BROWSER =
  'This sign-in link was not asked for in this browser. If you want to connect a device, ask for a new link here.';

const ERROR_TITLES: Record<number, string> = { 403: 'Not allowed', 429: 'Too many attempts', 503: 'Try again later' };

const LinkToken = z.string().max(128);
const DevicePageQuery = z.object({
  user_code: z.string().max(32).optional(),
  link: LinkToken.optional(),
  ask: z.string().max(64).optional(),
});
const DecisionForm = z.object({
  user_code: z.string().max(32),
  csrf: z.string().max(128).optional(),
  link: LinkToken.optional(),
  decision: z.enum(['approve', 'deny']),
});
const SignOutForm = z.object({ csrf: z.string().max(128).optional(), user_code: z.string().max(32).optional() });
const SignInForm = z.object({ email: MagicLinkRequest.shape.email, user_code: z.string().max(32).optional() });

/** RFC 8628 device sign-in: the CLI's two JSON endpoints and the /device page a person approves on. */
export function deviceRoutes(api: Api, deps: AppDeps): void {
  const { accounts, config, identity, magicLinks, deviceAuth: devices } = deps;
  const ip = (ctx: Context) => clientIp(ctx, config.trustProxy);
  const ownOrigin = () => new URL(deps.baseUrl()).origin;

  /** The person signed in through the browser session cookie, with the cookie itself (the CSRF key). */
  async function signedIn(ctx: Context): Promise<{ accountId: string; email: string; session: string } | null> {
    const session = readSessionCookie(ctx);
    const accountId = session ? await identity.sessionAccount(ctx) : null;
    const account = accountId ? await accounts.get(accountId) : undefined;
    return session && account ? { accountId: account.id, email: account.email, session } : null;
  }

  /** Service errors on the HTML side become pages with the same status (never JSON, never a 500). */
  async function page(fn: () => Promise<ReturnType<typeof html>>) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const { status, headers } = renderDomainError(err);
      const r = html(status, deviceErrorPage(ERROR_TITLES[status] ?? 'Code not accepted', err.message));
      return reply(r.status, r.body, { ...r.headers, ...headers });
    }
  }

  api.route({
    method: 'post',
    path: '/auth/device/code',
    operationId: 'startDeviceAuthorization',
    summary: 'Start device sign-in (RFC 8628 device authorization request)',
    description:
      `Returns a device_code for the client to poll with and a user_code (8 letters from ${DEVICE_AUTH.userCodeAlphabet}, shown as XXXX-XXXX) ` +
      `for the person to confirm at verification_uri. Codes expire after ${DEVICE_AUTH.expiresInSeconds} s; poll every \`interval\` seconds ` +
      `(${DEVICE_AUTH.intervalSeconds}). At most ${DEVICE_AUTH.startsPerIp} requests per IP per ${DEVICE_AUTH.failedLookups.windowMinutes} minutes.`,
    tags: ['Auth'],
    before: [refuseCrossSite(ownOrigin)],
    body: DeviceCodeRequest,
    responses: {
      200: { description: 'Device and user codes', schema: DeviceCodeResponse },
      400: { description: 'Invalid client_name' },
      403: { description: 'Sent by a page of another site (Origin or Sec-Fetch-Site names another origin)' },
      429: { description: 'Too many requests from this IP' },
    },
    handler: async ({ body }, ctx) => reply(200, await devices.start(body.client_name, ip(ctx)), NO_STORE),
  });

  api.route({
    method: 'post',
    path: '/auth/device/token',
    operationId: 'pollDeviceToken',
    summary: 'Poll for the API key (RFC 8628 device access token request)',
    description:
      'Answers 400 {error} with authorization_pending (keep polling), slow_down (polled sooner than `interval`; the interval grows by 5 s and ' +
      'the new value is in the body), expired_token, access_denied, or invalid_grant (unknown device_code, or its key was already handed out). ' +
      'Once the person approves, the next poll answers 200 {api_key, account_id, email} exactly once; every later poll is invalid_grant. ' +
      'Accepts JSON or application/x-www-form-urlencoded; grant_type, when sent, must be the RFC 8628 URN.',
    tags: ['Auth'],
    body: DeviceTokenRequest,
    responses: {
      200: {
        description: 'The new API key (the default scopes: all but payout), shown once',
        schema: DeviceTokenResponse,
      },
      400: { description: 'Pending, slow down, expired, denied or invalid', schema: DeviceTokenError },
    },
    handler: async ({ body }) => reply(200, await devices.poll(body.device_code), NO_STORE),
  });

  api.route({
    method: 'get',
    path: '/device',
    operationId: 'getDevicePage',
    summary: 'Device approval page (HTML)',
    description:
      'Signed out: offers a magic-link sign-in; the link opens this page with `link` (its token), which shows the code and the ' +
      'requesting client with Approve and Deny, and the button signs in as it decides. Signed in: shows the same. ' +
      `Failed code lookups are limited to ${DEVICE_AUTH.failedLookups.perIp} per IP per ${DEVICE_AUTH.failedLookups.windowMinutes} minutes (429).`,
    tags: ['Auth'],
    query: DevicePageQuery,
    responses: {
      200: { description: 'The page', contentType: 'text/html', schema: z.string() },
      404: { description: 'Unknown, expired or used code (HTML)', contentType: 'text/html', schema: z.string() },
      429: { description: 'Too many failed lookups from this IP (HTML)', contentType: 'text/html', schema: z.string() },
    },
    handler: async ({ query }, ctx) => {
      const { user_code: userCode, link } = query;
      // Opened from a sign-in link: the link's token stands in for the session until the button uses it.
      const linked = userCode && link ? await magicLinks.peek(link) : null;
      if (linked && !askedHere(ctx, linked.next)) return html(403, deviceSignInPage(userCode, OTHER_BROWSER));
      if (userCode && link && linked) {
        return page(async () =>
          html(200, deviceConfirmPage(linked.email, await devices.lookup(userCode, ip(ctx)), { link })),
        );
      }
      const who = await signedIn(ctx);
      if (!who)
        return html(
          200,
          deviceSignInPage(userCode, link ? 'This sign-in link was already used or expired.' : undefined),
        );
      if (!userCode) return html(200, deviceEnterCodePage(who.email, csrfToken(who.session)));
      return page(async () =>
        html(
          200,
          deviceConfirmPage(who.email, await devices.lookup(userCode, ip(ctx)), { csrf: csrfToken(who.session) }),
        ),
      );
    },
  });

  api.route({
    method: 'post',
    path: '/device',
    operationId: 'decideDevice',
    summary: 'Approve or deny a device (HTML form)',
    description:
      'Form fields user_code, decision (approve|deny), and either csrf (a token bound to the browser session cookie) or link (an unused ' +
      'sign-in link token, used up here: it signs the browser in as it decides). Needs a same-origin request; otherwise 403. ' +
      'Approval mints an API key (default scopes, no payout, named "device: <client>") for the polling client and is audit-logged.',
    tags: ['Auth'],
    responses: {
      200: { description: 'Done page', contentType: 'text/html', schema: z.string() },
      400: { description: 'Malformed form', contentType: 'text/html', schema: z.string() },
      401: {
        description: 'Not signed in, or the sign-in link is used or expired',
        contentType: 'text/html',
        schema: z.string(),
      },
      403: { description: 'Cross-site request or bad CSRF token', contentType: 'text/html', schema: z.string() },
      404: { description: 'Unknown, expired or used code', contentType: 'text/html', schema: z.string() },
      429: {
        description: "Too many failed lookups from this IP, or an approval past the account's key-creation limit",
        contentType: 'text/html',
        schema: z.string(),
      },
    },
    handler: async (_input, ctx) => {
      if (!sameOrigin(ctx, ownOrigin()))
        return html(403, deviceErrorPage('Not allowed', 'This request did not come from this site.'));
      const form = DecisionForm.safeParse(ctx.request.body ?? {});
      if (form.success && form.data.link) {
        const { user_code, decision, link } = form.data;
        const asked = await magicLinks.peek(link);
        if (asked && !askedHere(ctx, asked.next)) return html(403, deviceSignInPage(user_code, OTHER_BROWSER));
        const signIn = await magicLinks.verify(link);
        if (!signIn)
          return html(
            401,
            deviceSignInPage(user_code, 'This sign-in link was already used or expired; ask for a new one.'),
          );
        setSessionCookie(ctx, signIn.jwt, deps.baseUrl().startsWith('https:'));
        return page(async () => {
          await devices.decide(user_code, signIn.account.id, decision, ip(ctx));
          return html(200, deviceDonePage(decision));
        });
      }
      const who = await signedIn(ctx);
      if (!who) return html(401, deviceSignInPage(undefined, 'Your session ended; sign in again.'));
      if (!form.success) return html(400, deviceErrorPage('Something went wrong', 'The form was incomplete.'));
      if (!csrfValid(who.session, form.data.csrf)) {
        return html(
          403,
          deviceErrorPage(
            'Not allowed',
            'This form expired or did not come from this site; reload the page and try again.',
          ),
        );
      }
      const { user_code, decision } = form.data;
      return page(async () => {
        await devices.decide(user_code, who.accountId, decision, ip(ctx));
        return html(200, deviceDonePage(decision));
      });
    },
  });

  api.route({
    method: 'post',
    path: '/device/sign-out',
    operationId: 'signOutDevicePage',
    summary: 'Sign this browser out of the device page (HTML form)',
    description:
      'Form fields csrf (the token of the signed-in session) and user_code (optional). Clears the browser session cookie and ' +
      'answers 303 to the device page (for user_code when given), where another person can sign in. Needs a same-origin request ' +
      "and, while signed in, the session's CSRF token; otherwise 403. Signed out already: the same 303.",
    tags: ['Auth'],
    responses: {
      303: { description: 'Signed out; Location is the device page', contentType: 'text/html', schema: z.string() },
      403: { description: 'Cross-site request or bad CSRF token', contentType: 'text/html', schema: z.string() },
    },
    handler: async (_input, ctx) => {
      if (!sameOrigin(ctx, ownOrigin()))
        return html(403, deviceErrorPage('Not allowed', 'This request did not come from this site.'));
      const form = SignOutForm.safeParse(ctx.request.body ?? {});
      const who = await signedIn(ctx);
      if (who && !(form.success && csrfValid(who.session, form.data.csrf)))
        return html(403, deviceErrorPage('Not allowed', 'This form expired; reload the page and sign out again.'));
      clearSessionCookie(ctx, deps.baseUrl().startsWith('https:'));
      const userCode = form.success ? form.data.user_code : undefined;
      return reply(303, '', { ...PAGE_HEADERS, Location: userCode ? devicePagePath(userCode) : '/device' });
    },
  });

  api.route({
    method: 'post',
    path: '/device/sign-in',
    operationId: 'requestDeviceSignIn',
    summary: 'Email a sign-in link that returns to the device page (HTML form)',
    description: 'Form fields email, user_code (optional). Same limits as POST /auth/magic-link.',
    tags: ['Auth'],
    responses: {
      200: { description: 'Check-your-email page', contentType: 'text/html', schema: z.string() },
      400: { description: 'Invalid email', contentType: 'text/html', schema: z.string() },
      403: { description: 'Cross-site request', contentType: 'text/html', schema: z.string() },
      429: { description: 'Too many sign-in requests', contentType: 'text/html', schema: z.string() },
      503: { description: 'The mail server refused or is unreachable', contentType: 'text/html', schema: z.string() },
    },
    handler: async (_input, ctx) => {
      if (!sameOrigin(ctx, ownOrigin()))
        return html(403, deviceErrorPage('Not allowed', 'This request did not come from this site.'));
      const form = SignInForm.safeParse(ctx.request.body ?? {});
      if (!form.success) return html(400, deviceSignInPage(undefined, 'Enter a valid email address.'));
      const { email, user_code } = form.data;
      const next = user_code
        ? devicePagePath(user_code, askFromThisBrowser(ctx, deps.baseUrl().startsWith('https:')))
        : '/device';
      return page(async () => {
        await magicLinks.request(email, ip(ctx), next);
        return html(200, deviceCheckEmailPage());
      });
    },
  });
}
