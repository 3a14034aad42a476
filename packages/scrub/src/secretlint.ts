import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { presetView } from './preset-windows.js';
import type { Finding } from './types.js';

const CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendPreset }] };

/**
 * The preset's comment filter obeys `secretlint-disable` comments in the linted text. In a transcript those are
 * text the agent read, not the user's instruction to this scrubber: a file that silences secretlint in its own
 * repository must not leave its secrets in the transcript. (Disabling the filter in the preset's config is not
 * honoured by @secretlint/core 12 for rules inside a preset.) The directives are rewritten, at the same length so
 * offsets hold, before the text is linted.
 */
const DIRECTIVE = /secretlint-(?=disable|enable)/g;
export const neutraliseDirectives = (text: string): string => text.replace(DIRECTIVE, 'secretlint_');

/** Message ids as snake case (`GITHUB_TOKEN`, `AWSSecretAccessKey` -> `aws_secret_access_key`) for placeholders. */
export function typeOf(ruleId: string, messageId: string): string {
  const id = messageId || ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
  return id
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

/** `typeOf`, remembered: dense text has thousands of reports and only a few dozen distinct ids. */
const types = new Map<string, string>();
const typeFor = (ruleId: string, messageId: string): string => {
  const key = `${ruleId} ${messageId}`;
  let type = types.get(key);
  if (type === undefined) {
    type = typeOf(ruleId, messageId);
    types.set(key, type);
  }
  return type;
};

/**
 * secretlint's process-wide profiler (for its CLI's `--profile`) records a performance mark at each step of every
 * lint, keeps them all and scans them on each new one, so a long-running process (the extraction daemon) would grow
 * memory and slow down with every lint. Nothing in this process reads it: it records nothing. (Emptying it after each
 * lint instead would cost an event-loop turn per lint, and lints would wait for each other's clean-up.) This relies
 * on @secretlint/core marking through this instance: the version is pinned, and a test checks it.
 */
secretLintProfiler.mark = () => {};

/**
 * Secrets found by secretlint's recommended preset through `@secretlint/core` (async because lintSource is). It lints
 * only the parts of the text where the preset can match (`preset-windows.ts`), with the same findings as on the whole
 * text; they never start with a byte-order mark, which secretlint would drop and not count in its offsets.
 */
export async function secretlintFindings(text: string): Promise<Finding[]> {
  const view = presetView(text);
  if (!view) return [];
  const result = await lintSource({
    source: { filePath: '/transcript.txt', content: neutraliseDirectives(view.content), contentType: 'text' },
    options: { config: CONFIG, noPhysicFilePath: true },
  });
  return result.messages.map((m) => {
    const start = view.toOriginal(m.range[0]);
    return { type: typeFor(m.ruleId, m.messageId), start, end: start + m.range[1] - m.range[0] };
  });
}
