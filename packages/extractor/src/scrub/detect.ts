import type { Finding } from './types.js';

const EMAIL = /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}/g;

/** Every finding of the project's own rules (synchronous). */
export function detect(text: string): Finding[] {
  const findings: Finding[] = [];
  for (const m of text.matchAll(EMAIL)) {
    findings.push({ type: 'email', start: m.index, end: m.index + m[0].length });
  }
  return findings;
}
