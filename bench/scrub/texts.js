// The bench's texts, shared by run.js, compare.js and the scrubber's tests: the two labelled corpora, and the two
// throughput texts cut into transcript-sized documents (ExtractionRequest caps transcripts at 500,000 characters).
import { readFileSync, readdirSync } from 'node:fs';

const here = (p) => new URL(p, import.meta.url);
export const secrets = JSON.parse(readFileSync(here('./corpora/secrets/secrets.json'), 'utf8')).samples;
export const presidio = JSON.parse(readFileSync(here('./corpora/presidio-synth/dev.json'), 'utf8'));
/** Presidio entity types mapped to the scrubber's finding types (all but PERSON, which only the thorough tier finds). */
export const PRESIDIO_TYPES = {
  EMAIL_ADDRESS: 'email',
  PHONE_NUMBER: 'phone_number',
  CREDIT_CARD: 'credit_card',
  IBAN_CODE: 'iban',
  IP_ADDRESS: 'ip_address',
  US_SSN: 'us_ssn',
  STREET_ADDRESS: 'street_address',
};
/** The 500 presidio-synth records after dev.json's 1,000, read only to measure (see its SOURCE.md). */
export const presidioTest = JSON.parse(readFileSync(here('./corpora/presidio-synth/test.json'), 'utf8'));
/** Authored records without personal data, odd lines dev and even lines held out (corpora/no-personal/SOURCE.md). */
const noPersonal = readFileSync(here('./corpora/no-personal/records.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.length > 0);
export const noPersonalDev = noPersonal.filter((_, i) => i % 2 === 0);
export const noPersonalTest = noPersonal.filter((_, i) => i % 2 === 1);
/** Technical paragraphs with no personal data (corpora/technical/SOURCE.md). */
export const technical = JSON.parse(readFileSync(here('./corpora/technical/paragraphs.json'), 'utf8')).paragraphs;

/** `all`, repeated to ~4 MB and cut into 500,000-character documents. */
function documents(all) {
  const blob = all.repeat(Math.ceil(4_000_000 / all.length));
  const docs = [];
  for (let i = 0; i < blob.length; i += 500_000) docs.push(blob.slice(i, i + 500_000));
  return docs;
}

/** Documents cut from all corpus texts: a secret or a PII span every few hundred characters. */
export function throughputDocs() {
  return documents([...secrets.map((s) => s.text), ...presidio.map((r) => r.full_text)].join('\n'));
}

/**
 * Transcript-shaped documents of ordinary content: this repository's own sources and docs, as a coding agent
 * reads them, one JSONL tool_result event per file. Hits are rare here, unlike in the labelled corpora.
 */
export function transcriptDocs() {
  const root = here('../../');
  const files = readdirSync(new URL('packages/', root), { recursive: true })
    .filter((f) => /\/src\/.*\.ts$/.test(f))
    .sort()
    .map((f) => new URL(`packages/${f}`, root));
  const lines = [new URL('README.md', root), ...files].map((f, i) =>
    JSON.stringify({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: readFileSync(f, 'utf8') }],
      },
    }),
  );
  return documents(lines.join('\n'));
}
