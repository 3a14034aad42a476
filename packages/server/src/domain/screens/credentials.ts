// Credentials and personal-data screen, on the project's scrubber's thorough tier (credentials, personal data,
// person names and street addresses). What is stored is the redacted text (`[REDACTED:<type>]` for each finding,
// `[PERSON_n]` and `[ADDRESS_n]` for names and addresses), never the raw value.
import { type Finding, PlaceholderNumbering, redact, scrub } from '@axle/scrub';

export interface CredentialScreenResult {
  flagged: boolean;
  /** Finding types (the scrubber's names: `email`, `stripe_key`, `person`…), each once, in text order. */
  findings: string[];
  redacted: string;
}

/** Reserved documentation and local domains (RFC 2606, RFC 6761): addresses there belong to nobody. */
const RESERVED_EMAIL_DOMAIN = /@(?:[\w-]+\.)*(?:example\.(?:com|org|net)|example|test|invalid|localhost|local)$/i;
/** Private, link-local, documentation and unspecified addresses (RFC 1918, 3927, 5737, 3849, 4193). */
const NON_PERSONAL_IP = new RegExp(
  String.raw`^(?:10\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|169\.254\.|` +
    String.raw`192\.0\.2\.|198\.51\.100\.|203\.0\.113\.|0\.|(?:fe80|fc|fd|2001:db8)[:\w]*:)`,
  'i',
);

/** Card numbers the card networks and processors publish for testing; payment learnings quote them. */
const TEST_CARDS = new Set([
  '4242424242424242',
  '4000056655665556',
  '5555555555554444',
  '2223003122003222',
  '5200828282828210',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '3056930009020004',
  '36227206271667',
  '4111111111111111',
  '4012888888881881',
  '5105105105105100',
  '4000000000000002',
  '4000000000009995',
]);

/**
 * Findings that are not personal data, so neither flagged nor redacted: addresses at reserved documentation
 * domains, IP addresses in private, link-local or documentation ranges, and published test card numbers,
 * which technical learnings need.
 */
export function isNonPersonal(finding: Finding, text: string): boolean {
  const value = text.slice(finding.start, finding.end);
  if (finding.type === 'email') return RESERVED_EMAIL_DOMAIN.test(value);
  if (finding.type === 'ip_address') return NON_PERSONAL_IP.test(value);
  if (finding.type === 'credit_card') return TEST_CARDS.has(value.replace(/[ -]/g, ''));
  return false;
}

/**
 * Scrubs `text` for credentials and personal data; see CredentialScreenResult. `numbering` carries the names' and
 * addresses' numbers across the fields of one learning.
 */
export function screenCredentials(text: string, numbering = new PlaceholderNumbering()): CredentialScreenResult {
  const result = scrub(text, { tier: 'thorough' });
  const kept = result.findings.filter((f) => !isNonPersonal(f, text));
  const findings = [...new Set(kept.map((f) => f.type))];
  const placeholders = numbering.placeholders(text, kept);
  let i = 0;
  const redacted = redact(text, kept, { placeholder: () => placeholders[i++] }).text;
  return { flagged: findings.length > 0, findings, redacted };
}
