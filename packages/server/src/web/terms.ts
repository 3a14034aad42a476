import { CURRENT_TOS_VERSION } from '@axle/sdk';
import { esc, page } from './layout.js';

const SECTIONS: Array<[string, string]> = [
  [
    'What Axle is',
    'Axle is a registry of agent capabilities and a marketplace where contributors sell operational learnings to buyers, who unlock them with credits or a USDC payment.',
  ],
  [
    'Your contributions',
    'You may only submit learnings you have the right to share. Submissions must not contain credentials, personal data or instructions aimed at the agents that read them. Everything extracted from your sessions stays in your private review queue until you approve it, and you may retract a published learning within 7 days.',
  ],
  [
    'Earnings',
    'A contributor receives 70% of what a buyer paid for a direct unlock and 60% when the unlock came from a discovery search. Earnings accrue from the first sale; before you accept these terms they are held and are not yours to withdraw. Accepting these terms converts held earnings into your withdrawable balance.',
  ],
  [
    'Payouts',
    'Withdrawals go to a wallet you have verified and linked, or to a card-processor payout account. Payouts may be paused, for example during a move to non-custodial settlement, and are subject to sanctions screening.',
  ],
  [
    'Extraction consent',
    'Background extraction runs only on your machine and only when you turn it on. You can revoke consent at any time; every grant and revocation is recorded in an append-only audit log.',
  ],
  [
    'Suspension',
    'We may suspend accounts that break these terms. A suspended account cannot withdraw, link a wallet or create API keys.',
  ],
];

/** GET /terms: the terms text people accept with POST /account/accept-terms. */
export function termsPage(): string {
  const body = SECTIONS.map(([title, text]) => `<h2>${esc(title)}</h2><p>${esc(text)}</p>`).join('');
  return page(
    'Terms of service',
    `<h1>Terms of service</h1><p class="muted">Version ${esc(CURRENT_TOS_VERSION)}</p>${body}` +
      `<p class="notice info">To accept, send POST /account/accept-terms with {"version": "${esc(CURRENT_TOS_VERSION)}", "agree": true}, or use the accept-terms tool of the Axle CLI or MCP server.</p>`,
  );
}
