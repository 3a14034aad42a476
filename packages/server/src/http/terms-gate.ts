import { ERROR_CODES } from '@axle/sdk';
import type { Middleware } from 'koa';
import { DomainError } from '../domain/errors.js';
import { type TermsService, termsNotAccepted } from '../services/terms.js';

/**
 * For money and agency routes (link-wallet, withdrawals): mount after an identity middleware.
 * Until the account has accepted the current terms it answers 403 with the TermsNotAccepted body.
 */
export function requireTermsAccepted(terms: TermsService): Middleware {
  return async (ctx, next) => {
    const accountId = ctx.state.identity?.accountId;
    if (!accountId) throw new DomainError(ERROR_CODES.UNAUTHORIZED, 'Authentication required');
    if (!(await terms.hasAcceptedCurrent(accountId))) throw termsNotAccepted(terms.termsUrl());
    return next();
  };
}
