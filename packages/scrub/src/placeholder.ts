/**
 * Values that are templates, references or examples rather than real credentials: documentation placeholders,
 * environment references, masked values and code expressions. Redacting them would only add noise.
 */
const PLACEHOLDER =
  /^(?:<[^>]*>|\[[^\]]*\]|\{\{?[^}]*\}\}?|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|\*+|x+|X+|\.+|-+|_+|null|none|nil|undefined|true|false|string|str|number|int|bool|boolean|required|optional|redacted|changeme|placeholder|example|secret|password|token|empty|todo|tbd|n\/a)$/i;

const PLACEHOLDER_PARTS =
  /\.\.\.|…|your[_-]?|my[_-]?(?:api|secret|token|key|password)|example|placeholder|dummy|fake|sample|xxxx|\*\*\*|<[a-z_ -]+>|\$\{|\{\{|process\.env|os\.environ|getenv|env\[|secrets\.|\(\)|replace[_-]?(?:me|with|this)|insert[_-]|enter[_-]?your|goes[_-]?here|[_-]here$/i;

export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  return v.length === 0 || PLACEHOLDER.test(v) || PLACEHOLDER_PARTS.test(v);
}
