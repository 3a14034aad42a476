import type { Skill } from '@axle/sdk';

/**
 * A few plain lines on how to connect to a skill: what it is, how to reach or start it, what it
 * needs for auth, where its docs are, and what it costs.
 */
export function contentPreview(skill: Skill): string {
  const { connection: c, pricing: p } = skill;
  const kind = skill.type === 'mcp_server' ? 'MCP server' : 'Web API';
  const lines = [`${skill.name} — ${kind} (${skill.category}). ${skill.description}`.trim()];
  if (skill.type === 'mcp_server') {
    lines.push(`Start: ${c.command ?? c.endpoint} (transport: ${c.protocol}).`);
  } else {
    lines.push(`Endpoint: ${c.endpoint} (${c.protocol}).`);
  }
  const env = c.env?.length ? ` Set ${c.env.join(', ')}.` : '';
  lines.push(`Auth: ${c.auth || 'none'}.${env}`);
  if (c.docs) lines.push(`Docs: ${c.docs}`);
  const cost = p.cost_usd && p.cost_usd !== '0' ? `, from $${p.cost_usd}` : '';
  lines.push(`Pricing: ${p.model}${cost}.${p.note ? ` ${p.note}` : ''}`);
  return lines.join('\n');
}
