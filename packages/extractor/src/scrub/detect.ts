import { findEncodedSecrets } from './base64.js';
import { findEthereumKeys, findHighEntropyNearKeyWords } from './context.js';
import { applyRules } from './engine.js';
import { findIbans } from './iban.js';
import { findMnemonics } from './mnemonic.js';
import { findPrivateKeys } from './pem.js';
import { PHONE_RULE } from './phone.js';
import { PII_RULES } from './rules/pii.js';
import { CONTEXT_RULES, PROVIDER_RULES } from './rules/secrets.js';
import type { Finding } from './types.js';
import { decodedViews } from './unescape.js';

const SECRET_RULES = [...PROVIDER_RULES, ...CONTEXT_RULES];
// SSN before phone: an SSN-shaped span found by both keeps the more specific type.
const PERSONAL_RULES = [...PII_RULES, PHONE_RULE];

/** Credentials, keys and tokens in `text` as it stands (no unescaping, no base64). */
export function detectSecrets(text: string): Finding[] {
  const out: Finding[] = [];
  applyRules(text, SECRET_RULES, out);
  out.push(...findPrivateKeys(text), ...findEthereumKeys(text), ...findMnemonics(text));
  out.push(...findHighEntropyNearKeyWords(text));
  return out;
}

/** Personal data in `text` as it stands. */
export function detectPersonalData(text: string): Finding[] {
  const out: Finding[] = [];
  applyRules(text, PERSONAL_RULES, out);
  out.push(...findIbans(text));
  return out;
}

function detectView(text: string): Finding[] {
  return [...detectSecrets(text), ...findEncodedSecrets(text, detectSecrets), ...detectPersonalData(text)];
}

/**
 * Every finding of the project's own rules, on the text itself and on its JSON-unescaped views (two levels),
 * in original offsets. Findings may overlap; `redact` merges them.
 */
export function detect(text: string): Finding[] {
  const findings = detectView(text);
  for (const view of decodedViews(text)) {
    for (const f of detectView(view.text)) {
      findings.push({ type: f.type, start: view.origin[f.start], end: view.origin[f.end] });
    }
  }
  return findings;
}
