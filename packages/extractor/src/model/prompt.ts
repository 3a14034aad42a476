import { LEARNING_CATEGORIES, OUTCOMES } from '../types.js';
import type { ModelInput } from './model.js';

export const SYSTEM_PROMPT = `You extract reusable technical learnings from an AI coding session transcript.
A learning is a problem -> attempts -> resolution story another agent could reuse: the exact error,
what was tried, what fixed it and why. Skip anything non-technical, personal or generic advice.
Never copy credentials, personal data, file contents or long transcript passages; paraphrase.
Reply with one JSON object and nothing else: {"learnings": [ ... ]}, where each item is
{"title": string (>= 10 chars), "body": string (>= 50 chars), "category": one of ${LEARNING_CATEGORIES.join(', ')},
"tags": [string, ...] (>= 1), "task_context": string, "outcome": one of ${OUTCOMES.join(', ')},
"quality_self_assessment": {"specificity": 1-5, "actionability": 1-5, "novelty": 1-5, "completeness": 1-5}}.
Reply {"learnings": []} when the excerpt holds no such learning.`;

export function userPrompt(input: ModelInput): string {
  return `Transcript excerpt ${input.index + 1} (source: ${input.source}):\n\n${input.text}`;
}
