// What a registry URL to sync from must be, checked where an operator names one (AXLE_REGISTRY_SYNC_URL,
// `axle-server catalog sync --from`). Pure.

/**
 * Why `url` cannot name a registry to sync from, or undefined: it must be an http(s) URL without a user name or
 * password (those would reach every log record and error message that names the source).
 */
export function registryUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return 'must be a URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not hold a user name or password';
  return undefined;
}
