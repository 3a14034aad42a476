import { PlaceholderNumbering, scrub } from '@axle/scrub';
import type { LearningDraft } from '../types.js';

export interface RedactedDraft {
  draft: LearningDraft;
  /** How many regions of each type were replaced, over all fields. */
  counts: Record<string, number>;
}

/**
 * The draft as it may leave the machine: each text field through the scrubber's thorough tier, so person names and
 * street addresses become `[PERSON_n]` and `[ADDRESS_n]`, numbered across the fields ("ask [PERSON_1] to rotate the
 * key" in the body names the title's [PERSON_1]), and anything the fast tier finds becomes `[REDACTED:<type>]`.
 * Redacting an already redacted draft changes nothing.
 */
export function redactPersonal(draft: LearningDraft): RedactedDraft {
  const numbering = new PlaceholderNumbering();
  const counts: Record<string, number> = {};
  const field = (text: string): string => {
    const r = scrub(text, { tier: 'thorough', numbering });
    for (const [type, n] of Object.entries(r.report.counts ?? {})) counts[type] = (counts[type] ?? 0) + n;
    return r.text;
  };
  return {
    draft: {
      ...draft,
      title: field(draft.title),
      body: field(draft.body),
      task_context: field(draft.task_context),
      tags: draft.tags.map(field),
    },
    counts,
  };
}
