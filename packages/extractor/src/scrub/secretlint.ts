import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend';
import type { Finding } from './types.js';

// The rule API's types, taken from the preset's own signature.
type PresetContext = Parameters<typeof recommendPreset.create>[0];
type RuleCreator = Parameters<PresetContext['registerRule']>[0];
type RuleContext = Parameters<RuleCreator['create']>[0];
type SourceCode = Parameters<NonNullable<ReturnType<RuleCreator['create']>['file']>>[0];

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
 * `secretlint-disable` comments in a transcript are text the agent read, not the user's instruction to this
 * scrubber: a file that silences secretlint in its own repository must not leave its secrets in the transcript.
 */
const COMMENT_FILTER = '@secretlint/secretlint-rule-filter-comments';

const unsupported = (): never => {
  throw new Error('positions are not provided: no rule run here asks for them');
};

/** The text as the rules see it: content only, no file (no rule may read one from disk). */
const sourceOf = (content: string): SourceCode => ({
  content,
  hasBOM: false,
  filePath: undefined,
  physicalFilePath: undefined,
  contentType: 'text',
  ext: '',
  getFilePath: () => undefined,
  getPhysicalFilePath: () => undefined,
  locationToRange: unsupported,
  rangeToLocation: unsupported,
  positionToIndex: unsupported,
  indexToPosition: unsupported,
});

/**
 * Secrets found by secretlint's recommended preset. Its rules are run directly through the rule API rather than
 * through `lintSource`, whose per-report bookkeeping (line and column of every report, profiler marks,
 * de-duplication, sorting) took half of the preset's time on dense input and yields nothing used here. Each call
 * creates its own rule instances, so concurrent calls do not share state. Async because rules may be.
 */
export async function secretlintFindings(text: string): Promise<Finding[]> {
  const found: Finding[] = [];
  const handlers: NonNullable<ReturnType<RuleCreator['create']>['file']>[] = [];
  recommendPreset.create(
    {
      sharedOptions: {},
      registerRule(rule) {
        if (rule.meta.id === COMMENT_FILTER) return;
        const context: RuleContext = {
          sharedOptions: {},
          createTranslator: () => (messageId, data) => ({ message: '', messageId: String(messageId), data }),
          report: (d) => found.push({ type: typeFor(rule.meta.id, d.message.messageId), start: d.range[0], end: d.range[1] }),
          ignore: () => undefined,
        };
        // No options, as lintSource gives them under a config that sets none.
        const file = rule.create(context, {} as Parameters<typeof rule.create>[1]).file;
        if (file) handlers.push(file);
      },
    },
    {},
  );
  const source = sourceOf(text);
  for (const file of handlers) await file(source);
  return found;
}
