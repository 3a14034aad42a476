import { AccountId, AdminAccount, AdminSuspension, AuditVerification, ERROR_CODES, z } from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../domain/errors.js';
import type { Api } from '../http/route.js';

const Params = z.object({ id: AccountId });

/** Operator routes for accounts: read scope to look, admin scope to suspend. */
export function adminRoutes(api: Api, deps: AppDeps): void {
  const { accounts, audit, identity } = deps;

  api.route({
    method: 'get',
    path: '/admin/accounts/{id}',
    operationId: 'getAdminAccount',
    summary: 'Account summary (admin read scope)',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('read')],
    params: Params,
    responses: {
      200: { description: 'Account', schema: AdminAccount },
      401: { description: 'Missing or invalid admin token' },
      404: { description: 'No such account' },
    },
    handler: async ({ params }) => {
      const account = await accounts.get(params.id);
      if (!account) throw new DomainError(ERROR_CODES.NOT_FOUND, 'Account not found', { id: params.id });
      return {
        id: account.id,
        email: account.email,
        wallet: account.wallet,
        suspended: account.suspended === 1,
        created_at: account.created_at,
        api_key_count: (await accounts.listKeys(account.id)).length,
      };
    },
  });

  for (const [action, suspended] of [
    ['suspend', true],
    ['unsuspend', false],
  ] as const) {
    api.route({
      method: 'post',
      path: `/admin/accounts/{id}/${action}`,
      operationId: `${action}Account`,
      summary: `${suspended ? 'Suspend' : 'Reinstate'} an account (admin scope)`,
      description: suspended
        ? 'A suspended account is refused (403 account_suspended) on key creation, money and agency routes. Audit-logged.'
        : 'Lifts a suspension. Audit-logged.',
      tags: ['Admin'],
      security: ['AdminToken'],
      before: [identity.requireAdmin('admin')],
      params: Params,
      responses: {
        200: { description: 'New state and its audit entry', schema: AdminSuspension },
        401: { description: 'Missing or invalid admin token' },
        403: { description: 'Read-only admin token' },
        404: { description: 'No such account' },
      },
      handler: async ({ params }) => {
        const auditRef = await accounts.setSuspended(params.id, suspended);
        if (!auditRef) throw new DomainError(ERROR_CODES.NOT_FOUND, 'Account not found', { id: params.id });
        return { account_id: params.id, suspended, audit_ref: auditRef };
      },
    });
  }

  api.route({
    method: 'get',
    path: '/admin/audit/verify',
    operationId: 'verifyAuditLog',
    summary: 'Verify the hash-chained audit log (admin read scope)',
    description:
      'Walks the whole chain; reports the first entry that was edited, removed or re-linked. Same check as `npm run audit:verify`.',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('read')],
    responses: {
      200: { description: 'Result (ok false when tampering was found)', schema: AuditVerification },
      401: { description: 'Missing or invalid admin token' },
    },
    handler: () => audit.verify(),
  });
}
