import {
  type AccountSettings,
  type AccountSettingsPatchResponse,
  type ConsentResponse,
  CURRENT_CONSENT_VERSION,
  DEFAULT_AUTO_PUBLISH_THRESHOLD,
} from '@axle/sdk';
import type { Clock } from '../clock.js';
import { type ConsentActionValue, consentStore, type ExtractionModeValue } from '../store/consent.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import type { AccountWriteLimiter } from './account-write-limits.js';
import { appendAudit } from './audit.js';

/** Who made a consent change: an account, through a session token or (keyId set) one of its API keys. */
export interface ConsentActor {
  accountId: string;
  keyId?: string;
}

export interface ConsentService {
  /** POST /extract/consent: every call is an explicit act and is recorded. Revoking also turns the mode off. */
  record(actor: ConsentActor, action: ConsentActionValue): Promise<ConsentResponse>;
  /** PATCH /account/settings: records a grant when consent is not in force and the mode becomes non-off, a revocation when it is and the mode becomes off. */
  setMode(
    actor: ConsentActor,
    change: { mode?: ExtractionModeValue; autoPublishThreshold?: number },
  ): Promise<AccountSettingsPatchResponse>;
  settings(accountId: string): Promise<AccountSettings>;
  /** Whether standing extraction consent is in force (the latest record is a grant). */
  isGranted(q: Queryable, accountId: string): Promise<boolean>;
}

/** Both writes are limited per account (LIMITS.accountWrites.consentChange). */
export function createConsentService({
  db,
  clock,
  writeLimits,
}: {
  db: Transactor;
  clock: Clock;
  writeLimits: AccountWriteLimiter;
}): ConsentService {
  async function write(
    q: Queryable,
    actor: ConsentActor,
    action: ConsentActionValue,
    via: 'consent' | 'settings',
    now: number,
  ) {
    const accountId = actor.accountId;
    const auditRef = await appendAudit(
      q,
      {
        actor: `account:${accountId}`,
        action: action === 'grant' ? 'consent.granted' : 'consent.revoked',
        subject: accountId,
        // A change made with an API key names the key, so a leaked key's changes can be found and undone.
        data: { consent_version: CURRENT_CONSENT_VERSION, via, ...(actor.keyId && { key_id: actor.keyId }) },
      },
      now,
    );
    await consentStore.insert(q, {
      account_id: accountId,
      action,
      consent_version: CURRENT_CONSENT_VERSION,
      via,
      recorded_at: now,
      audit_ref: auditRef,
    });
    return auditRef;
  }

  return {
    record(actor, action) {
      return db.tx(async (q) => {
        await writeLimits.take('consentChange', actor.accountId, q);
        const now = clock.now();
        const auditRef = await write(q, actor, action, 'consent', now);
        if (action === 'revoke') await consentStore.setMode(q, actor.accountId, 'off', now);
        return { consent_recorded: true, action, consent_version: CURRENT_CONSENT_VERSION, audit_ref: auditRef };
      });
    },

    setMode(actor, { mode: given, autoPublishThreshold }) {
      const { accountId } = actor;
      return db.tx(async (q) => {
        await writeLimits.take('consentChange', accountId, q);
        const now = clock.now();
        if (autoPublishThreshold !== undefined)
          await consentStore.setAutoPublishThreshold(q, accountId, autoPublishThreshold, now);
        const threshold = (await consentStore.autoPublishThreshold(q, accountId)) ?? DEFAULT_AUTO_PUBLISH_THRESHOLD;
        const mode = given ?? (await consentStore.mode(q, accountId)) ?? 'off';
        const granted = (await consentStore.latest(q, accountId))?.action === 'grant';
        const change: ConsentActionValue | undefined =
          given === undefined
            ? undefined
            : mode !== 'off' && !granted
              ? 'grant'
              : mode === 'off' && granted
                ? 'revoke'
                : undefined;
        if (given !== undefined) await consentStore.setMode(q, accountId, mode, now);
        const settings = { autonomous_extraction_mode: mode, auto_publish_threshold: threshold };
        if (!change) return { ...settings, consent_recorded: false };
        const auditRef = await write(q, actor, change, 'settings', now);
        return { ...settings, consent_recorded: true, consent_version: CURRENT_CONSENT_VERSION, audit_ref: auditRef };
      });
    },

    async settings(accountId) {
      const [mode, latest, threshold] = await Promise.all([
        consentStore.mode(db, accountId),
        consentStore.latest(db, accountId),
        consentStore.autoPublishThreshold(db, accountId),
      ]);
      return {
        auto_publish_threshold: threshold ?? DEFAULT_AUTO_PUBLISH_THRESHOLD,
        autonomous_extraction_mode: mode ?? 'off',
        consent_granted: latest?.action === 'grant',
        consent_version: latest?.consent_version ?? null,
      };
    },

    async isGranted(q, accountId) {
      return (await consentStore.latest(q, accountId))?.action === 'grant';
    },
  };
}
