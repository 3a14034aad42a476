-- Money: credits, purchases, unlocks and the revenue-share ledger, withdrawals, payment replay
-- claims, wallet proofs. Amounts are integer micro-USDC; times are Unix ms. A holder is an
-- account id (acc_…) or, for contributions attributed to a wallet alone, a lower-case wallet.

-- Card-bought credits; they never expire.
CREATE TABLE credit_balances (
  account_id TEXT PRIMARY KEY REFERENCES accounts (id),
  unlocks INTEGER NOT NULL DEFAULT 0 CHECK (unlocks >= 0),
  queries INTEGER NOT NULL DEFAULT 0 CHECK (queries >= 0),
  updated_at INTEGER NOT NULL
);

CREATE TABLE purchases (
  id TEXT PRIMARY KEY,                                  -- pur_…
  account_id TEXT NOT NULL REFERENCES accounts (id),
  pack_id TEXT NOT NULL,
  amount_micro INTEGER NOT NULL,
  queries_added INTEGER NOT NULL,
  unlocks_added INTEGER NOT NULL,
  checkout_session_id TEXT UNIQUE NOT NULL,             -- one purchase per completed checkout
  created_at INTEGER NOT NULL
);
CREATE INDEX purchases_account ON purchases (account_id, created_at);

-- One row per unlock served: what the buyer paid and how it was split (contributor + platform = gross).
CREATE TABLE unlocks (
  id TEXT PRIMARY KEY,                                  -- unl_…
  learning_id TEXT NOT NULL,
  buyer TEXT NOT NULL,                                  -- acc_… (key path) or the payer's lower-case wallet
  path TEXT NOT NULL CHECK (path IN ('key', 'x402', 'owner')),
  gross_micro INTEGER NOT NULL CHECK (gross_micro >= 0),
  contributor_micro INTEGER NOT NULL CHECK (contributor_micro >= 0),
  platform_micro INTEGER NOT NULL CHECK (platform_micro >= 0),
  payee TEXT,                                           -- holder credited with contributor_micro; NULL when none
  held INTEGER NOT NULL DEFAULT 0,                      -- 1: credited as unassented_pending
  discovery INTEGER NOT NULL DEFAULT 0,
  self_dealing INTEGER NOT NULL DEFAULT 0,
  accrual_capped INTEGER NOT NULL DEFAULT 0,
  settlement_path TEXT,                                 -- x402: local, facilitator or router
  tx_hash TEXT,
  created_at INTEGER NOT NULL,
  CHECK (contributor_micro + platform_micro = gross_micro)
);
CREATE INDEX unlocks_buyer ON unlocks (buyer, learning_id, created_at);
CREATE INDEX unlocks_learning ON unlocks (learning_id, created_at);
CREATE INDEX unlocks_payee ON unlocks (payee);

-- Running balances per holder; ledger_entries is the journal they are the sums of (npm run ledger:check).
CREATE TABLE earnings_balances (
  holder TEXT PRIMARY KEY,
  owned_micro INTEGER NOT NULL DEFAULT 0 CHECK (owned_micro >= 0),        -- lifetime owned contributor share
  held_micro INTEGER NOT NULL DEFAULT 0 CHECK (held_micro >= 0),          -- unassented_pending
  pending_micro INTEGER NOT NULL DEFAULT 0 CHECK (pending_micro >= 0),    -- withdrawable
  withdrawn_micro INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn_micro >= 0),
  withdrawal_count INTEGER NOT NULL DEFAULT 0 CHECK (withdrawal_count >= 0),
  updated_at INTEGER NOT NULL
);

-- accrue: +owned +pending; hold: +held; release: -held +owned +pending; migrate_out: -held;
-- migrate_in: +held; withdraw: -pending +withdrawn; refund: +pending -withdrawn (failed payout).
CREATE TABLE ledger_entries (
  id TEXT PRIMARY KEY,                                  -- led_…
  holder TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('accrue', 'hold', 'release', 'migrate_out', 'migrate_in', 'withdraw', 'refund')),
  amount_micro INTEGER NOT NULL CHECK (amount_micro > 0),
  ref TEXT,                                             -- unlock, settlement or counterpart holder
  created_at INTEGER NOT NULL
);
CREATE INDEX ledger_entries_holder ON ledger_entries (holder, kind);

CREATE TABLE settlements (
  id TEXT PRIMARY KEY,                                  -- set_…
  holder TEXT NOT NULL,                                 -- the account whose pending balance was debited
  wallet TEXT,
  rail TEXT NOT NULL CHECK (rail IN ('wallet', 'processor')),
  amount_micro INTEGER NOT NULL CHECK (amount_micro > 0),
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'processing_timeout', 'failed')),
  tx_hash TEXT,
  payout_id TEXT,
  created_at INTEGER NOT NULL,
  confirmed_at INTEGER
);
-- At most one unresolved withdrawal per holder: the second concurrent one fails this index (409).
CREATE UNIQUE INDEX settlements_in_flight ON settlements (holder) WHERE status IN ('pending', 'processing_timeout');
CREATE INDEX settlements_wallet ON settlements (wallet, created_at);

-- An x402 authorization buys one unlock: (chain, payer, nonce) is claimed before settling.
CREATE TABLE payment_claims (
  chain_id INTEGER NOT NULL,
  payer TEXT NOT NULL,
  nonce TEXT NOT NULL,
  learning_id TEXT NOT NULL,
  unlock_id TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (chain_id, payer, nonce)
);

CREATE TABLE wallet_challenges (
  id TEXT PRIMARY KEY,                                  -- wch_…, also the challenge's nonce
  wallet TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX wallet_challenges_wallet ON wallet_challenges (wallet, expires_at);

CREATE TABLE wallet_verifications (
  wallet TEXT PRIMARY KEY,
  verified_at INTEGER NOT NULL
);

-- A wallet pays out to one account only.
CREATE UNIQUE INDEX accounts_wallet ON accounts (wallet) WHERE wallet IS NOT NULL;

-- The processor-side account that card-rail payouts go to (created through hosted onboarding).
CREATE TABLE payout_accounts (
  account_id TEXT PRIMARY KEY REFERENCES accounts (id),
  processor_account_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
