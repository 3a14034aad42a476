import type { Skill } from '@axle/sdk';

/** Tool names listed in the preview; the full list is the skill's `tools`. */
const PREVIEW_TOOLS = 12;

const AUTH_WORDS: Record<string, string> = { none: 'none', apiKey: 'an API key from the provider', OAuth: 'OAuth' };

/**
 * A few plain lines on how to connect to a skill: what it is, how to reach or start it, what it
 * needs for auth, where its docs are, and what it costs.
 */
export function contentPreview(skill: Skill): string {
  const { connection: c, pricing: p } = skill;
  const mcp = skill.type === 'mcp_server';
  const lines = [`${skill.name} — ${mcp ? 'MCP server' : 'web API'}, ${skill.category}. ${skill.description}`.trim()];
  lines.push(
    mcp ? `Run: ${c.command ?? c.endpoint} (${c.protocol} transport)` : `Connect: ${c.endpoint} (${c.protocol})`,
  );
  const env = c.env ?? [];
  const described = skill.install?.env ?? [];
  if (described.length > 0) {
    const vars = described.map((v) => `${v.name}${v.secret ? ' (secret)' : ''}`);
    lines.push(`Auth: set ${vars.join(', ')} in the server's environment`);
  } else if (env.length > 0) lines.push(`Auth: set ${env.join(', ')} in the server's environment`);
  else lines.push(`Auth: ${AUTH_WORDS[c.auth] ?? (c.auth || 'none')}`);
  if (skill.install?.note) lines.push(`Configure: ${skill.install.note}`);
  if (c.docs) lines.push(`Docs: ${c.docs}`);
  const tools = skill.tools ?? [];
  if (tools.length > 0) {
    const shown = tools.slice(0, PREVIEW_TOOLS).map((t) => t.name);
    const more = tools.length > shown.length ? ` and ${tools.length - shown.length} more` : '';
    lines.push(`Tools: ${shown.join(', ')}${more}`);
  }
  const cost = p.cost_usd && Number(p.cost_usd) > 0 ? ` (from $${p.cost_usd})` : '';
  lines.push(`Pricing: ${p.model}${cost}${p.note ? ` — ${p.note}` : ''}`);
  return lines.join('\n');
}
