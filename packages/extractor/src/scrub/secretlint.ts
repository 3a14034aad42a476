import { lintSource } from '@secretlint/core';
import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend';
import type { Finding } from './types.js';

const CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendPreset }] };

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

/** Secrets found by secretlint's recommended preset (async because lintSource is). */
export async function secretlintFindings(text: string): Promise<Finding[]> {
  const result = await lintSource({
    source: { filePath: '/transcript.txt', content: text, contentType: 'text' },
    options: { config: CONFIG, noPhysicFilePath: true },
  });
  return result.messages.map((m) => ({ type: typeOf(m.ruleId, m.messageId), start: m.range[0], end: m.range[1] }));
}
