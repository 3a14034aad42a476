-- The account a wallet's owner verified it for (the credential sent with POST /wallet/verify): only that account may
-- link it. Null for a verification sent without one (a wallet-only contributor's identity for POST /learn).
ALTER TABLE wallet_verifications ADD COLUMN account_id TEXT;
