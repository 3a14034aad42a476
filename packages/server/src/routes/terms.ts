import { AcceptTermsRequest, AcceptTermsResponse, CURRENT_TOS_VERSION, TermsStatus, z } from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { type Api, reply } from '../http/route.js';
import { PAGE_HEADERS } from '../web/layout.js';
import { termsPage } from '../web/terms.js';

/** GET /terms (the page), GET /account/terms-status, POST /account/accept-terms. */
export function termsRoutes(api: Api, deps: AppDeps): void {
  const { identity, terms } = deps;

  api.route({
    method: 'get',
    path: '/terms',
    operationId: 'getTermsPage',
    summary: 'Terms of service (HTML)',
    description: `The text accepted by POST /account/accept-terms; current version ${CURRENT_TOS_VERSION}.`,
    tags: ['Account'],
    responses: { 200: { description: 'The terms page', contentType: 'text/html', schema: z.string() } },
    handler: () => reply(200, termsPage(), { ...PAGE_HEADERS }),
  });

  api.route({
    method: 'get',
    path: '/account/terms-status',
    operationId: 'getTermsStatus',
    summary: 'Which terms version is current and which one this account accepted',
    tags: ['Account'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    responses: {
      200: { description: 'Terms status', schema: TermsStatus },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'API key without the account scope' },
    },
    handler: (_input, ctx) => terms.status(ctx.state.identity!.accountId),
  });

  api.route({
    method: 'post',
    path: '/account/accept-terms',
    operationId: 'acceptTerms',
    summary: 'Accept the current terms of service (clickwrap)',
    description:
      'Records the acceptance (append-only, audit-logged; the response carries audit_ref). Accepting the same version again returns the original ' +
      'acceptance. The account’s first acceptance also converts held unassented_pending earnings into withdrawable balance, in the same transaction. ' +
      `Money and agency routes answer 403 TERMS_NOT_ACCEPTED until version ${CURRENT_TOS_VERSION} is accepted.`,
    tags: ['Account'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    body: AcceptTermsRequest,
    responses: {
      200: { description: 'Accepted', schema: AcceptTermsResponse },
      400: { description: 'Missing version, or agree is not true (code AFFIRMATION_REQUIRED)' },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'API key without the contribute scope' },
      409: { description: 'Not the current terms version' },
    },
    handler: ({ body }, ctx) => {
      const { accountId, via } = ctx.state.identity!;
      return terms.accept(accountId, { version: body.version, agree: body.agree, via });
    },
  });
}
