import { looksRandom } from '../entropy.js';
import type { Rule } from '../engine.js';
import { isPlaceholder } from '../placeholder.js';

/** Token boundaries: a token never starts or ends inside a longer run of token characters. */
const B = '(?<![A-Za-z0-9_-])';
const E = '(?![A-Za-z0-9_-])';

const token = (type: string, body: string, accept?: Rule['accept']): Rule => ({
  type,
  // A capturing group, when the body has one, is the value to redact (match indices only then: they cost).
  pattern: new RegExp(`${B}${body}${E}`, /\((?!\?)/.test(body) ? 'dg' : 'g'),
  accept: (value, m, text) => !isPlaceholder(value) && (accept ? accept(value, m, text) : true),
});

/**
 * Vendor credentials with a recognisable prefix or shape, each a whole token (Telegram bot tokens have their own
 * module). Order matters only for ties in the redaction type.
 */
export const TOKEN_RULES: readonly Rule[] = [
  token('aws_access_key', '(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|APKA)[A-Z0-9]{16}'),
  token('github_token', '(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}'),
  token('github_token', 'github_pat_[A-Za-z0-9_]{70,100}'),
  // Routable tokens (GitLab 17.x+) carry a version and a checksum after the body: `glpat-<body>.01.<crc>`.
  token(
    'gitlab_token',
    'gl(?:pat|dt|ptt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,64}(?:\\.[0-9a-z]{2}\\.[0-9a-z]{7,10})?',
  ),
  token('slack_token', 'xox[abposer]-[A-Za-z0-9-]{10,250}'),
  token('slack_token', 'xapp-\\d-[A-Z0-9]{6,16}-\\d{6,16}-[a-f0-9]{32,80}'),
  token('slack_webhook', 'https://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,160}'),
  token('stripe_key', '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}'),
  token('stripe_webhook_secret', 'whsec_[A-Za-z0-9+/=]{24,64}'),
  token('anthropic_api_key', 'sk-ant-(?:api|admin|oat|ort|sid)\\d{2}-[A-Za-z0-9_-]{32,200}'),
  token('openrouter_api_key', 'sk-or-v1-[a-f0-9]{64}'),
  token('openai_api_key', 'sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,250}', (v) =>
    looksRandom(v.slice(3), 20),
  ),
  token('google_api_key', 'AIza[0-9A-Za-z_-]{35}'),
  token('google_oauth_secret', 'GOCSPX-[A-Za-z0-9_-]{28}'),
  token('google_oauth_token', 'ya29\\.[A-Za-z0-9_-]{20,2048}'),
  token('npm_token', 'npm_[A-Za-z0-9]{36}'),
  token('pypi_token', 'pypi-AgE[A-Za-z0-9_-]{50,1000}'),
  token('twilio_api_key', 'SK[0-9a-fA-F]{32}'),
  // The API key's secret, passed after it as a string literal (`twilio('SK…', '<secret>')`): no key word names it.
  token('twilio_api_secret', `SK[0-9a-fA-F]{32}["']\\s{0,3},\\s{0,3}["']([A-Za-z0-9]{32})(?=["'])`),
  token('sendgrid_api_key', 'SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}'),
  token('mailgun_api_key', 'key-[0-9a-f]{32}'),
  token('shopify_token', 'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}'),
  token('discord_bot_token', '[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}'),
  token(
    'discord_webhook',
    'https://(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/webhooks/\\d{5,30}/[A-Za-z0-9_-]{50,100}',
  ),
  token('digitalocean_token', 'do[opr]_v1_[a-f0-9]{64}'),
  token('heroku_api_key', 'HRKU-[A-Za-z0-9_-]{60}'),
  token('vault_token', 'hv[sbr]\\.[A-Za-z0-9_-]{24,300}'),
  token('huggingface_token', 'hf_[A-Za-z0-9]{34,40}'),
  token('groq_api_key', 'gsk_[A-Za-z0-9]{52}'),
  token('linear_api_key', 'lin_api_[A-Za-z0-9]{40}'),
  token('notion_token', '(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46})'),
  token('databricks_token', 'dapi[a-f0-9]{32}(?:-\\d)?'),
  token('grafana_token', '(?:glc_[A-Za-z0-9+/=]{32,400}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8})'),
  token('jwt', 'eyJ[A-Za-z0-9_-]{10,4000}\\.eyJ[A-Za-z0-9_-]{2,8000}\\.[A-Za-z0-9_-]{0,2000}'),
  // Less common vendors, by their documented prefixes.
  token('age_secret_key', 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}'),
  token('doppler_token', 'dp\\.(?:pt|ct|sa|scim|audit|st(?:\\.[a-z0-9_-]{1,40})?)\\.[A-Za-z0-9]{40,44}'),
  token('atlassian_token', 'ATATT3[A-Za-z0-9_=-]{150,250}'),
  token('pulumi_token', 'pul-[a-f0-9]{40}'),
  token('newrelic_key', '(?:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9-]{32})'),
  token('mapbox_secret_token', 'sk\\.eyJ[A-Za-z0-9_-]{20,400}\\.[A-Za-z0-9_-]{20,40}'),
  token('sentry_token', '(?:sntryu_[a-f0-9]{64}|sntrys_eyJ[A-Za-z0-9+/=]{20,800}_[A-Za-z0-9+/]{43})'),
  token('flyio_token', '(?:fo1_[A-Za-z0-9_-]{43}|fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,4000}={0,3})'),
  token('planetscale_token', 'pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}'),
  token('postman_api_key', 'PMAK-[a-f0-9]{24}-[a-f0-9]{34}'),
  token('replicate_api_token', 'r8_[A-Za-z0-9]{37}'),
  token('perplexity_api_key', 'pplx-[A-Za-z0-9]{48}'),
  token('xai_api_key', 'xai-[A-Za-z0-9]{80}'),
  token('langsmith_api_key', 'lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}'),
  token('supabase_token', 'sbp_[a-f0-9]{40}'),
  token('netlify_token', 'nfp_[A-Za-z0-9]{36}'),
  token('circleci_token', 'CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}'),
  token('buildkite_token', 'bkua_[a-f0-9]{40}'),
  token('linear_api_key', 'lin_oauth_[a-f0-9]{64}'),
  token('airtable_token', 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}'),
  token('rubygems_api_key', 'rubygems_[a-f0-9]{48}'),
  token('nuget_api_key', 'oy2[a-z0-9]{43}'),
  token('clojars_token', 'CLOJARS_[a-z0-9]{60}'),
  token('adafruit_io_key', 'aio_[A-Za-z0-9]{28}'),
  token('easypost_api_key', 'EZ[AT]K[a-z0-9]{54}'),
  token('square_token', '(?:EAAA[A-Za-z0-9_-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43})'),
  token('shippo_api_token', 'shippo_(?:live|test)_[a-f0-9]{40}'),
  token('google_oauth_refresh_token', '1//0[A-Za-z0-9_-]{40,512}'),
  token('scalingo_token', 'tk-us-[A-Za-z0-9_-]{48}'),
  token('prefect_api_key', 'pnu_[A-Za-z0-9]{36}'),
  token('cloudflare_origin_ca_key', 'v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}'),
  token('deno_token', 'dd[pw]_[A-Za-z0-9]{36}'),
  token('resend_api_key', 're_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}'),
  token('pinecone_api_key', 'pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{50,80}'),
  token('tailscale_key', 'tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,64}'),
  token('supabase_secret_key', 'sb_secret_[A-Za-z0-9_-]{20,80}'),
  token('artifactory_token', '(?:cmVmdGtu[A-Za-z0-9_-]{40,100}|AKCp[A-Za-z0-9]{69})'),
  token('docker_token', 'dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,40}'),
  token('bitbucket_app_password', 'ATBB[A-Za-z0-9_=.-]{28,60}'),
  token('figma_token', 'figd_[A-Za-z0-9_-]{38,45}'),
];

/**
 * Vendor credentials whose distinctive literal sits inside the token, found from it (as Azure's below): a
 * class-first pattern would be tried at every token start.
 */
export const INNER_LITERAL_RULES: readonly Rule[] = [
  {
    type: 'terraform_token',
    pattern: /\.atlasv1\.(?<=(?<![A-Za-z0-9_-])[A-Za-z0-9]{14}\.atlasv1\.)[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_-])/g,
    expandLeft: 14,
  },
  {
    type: 'mailchimp_api_key',
    pattern: /-us(?<=(?<![A-Za-z0-9_-])[a-f0-9]{32}-us)\d{1,2}(?![A-Za-z0-9_-])/g,
    expandLeft: 32,
  },
];

/** Azure credentials, found from a literal that need not start a token. */
export const AZURE_RULES: readonly Rule[] = [
  {
    type: 'azure_client_secret',
    // Anchored on the literal `Q~` (a class-first pattern would be tried at every letter); the 4 characters
    // before it are checked by the lookbehind that follows it.
    pattern: /Q~(?<=(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~)[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
    expandLeft: 4,
  },
  {
    type: 'azure_storage_key',
    pattern: /(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,100}={0,2})/dg,
  },
  {
    type: 'azure_sas_signature',
    // Anchored on `sig=`, rarer than `?` and `&`; the separator before it is checked by the lookbehind.
    pattern: /sig=(?<=[?&]sig=)([A-Za-z0-9%+/=]{40,120})/dg,
  },
];

const STRONG_NAME =
  /pass(?:word|wd|phrase)?|pwd|(?:^|[^a-z])pw(?:$|[^a-z])|secret|private[_-]?key|credential|access[_-]?key|api[_-]?key|apikey|auth[_-]?token|salt/i;
/** A dotted identifier or call is a reference to a secret held elsewhere, not the secret itself. */
const CODE_REFERENCE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$|^[A-Za-z_$][\w$]*\(|^\d+(?:\.\d+)?$/;

/** Operators that start an expression: `password = await prompt()` computes the value, it does not hold it. */
const EXPRESSION_KEYWORD = /^(?:await|yield|new|typeof|async|lambda)$/;

/** Whether an unquoted value ending at `end` is code: a call (`input(...)`) or a keyword before an expression. */
function computedValue(value: string, text: string, end: number): boolean {
  if (text.charCodeAt(end) === 40) return true; // '('
  return EXPRESSION_KEYWORD.test(value) && /^ +[\w$(]/.test(text.slice(end, end + 8));
}

/**
 * `NAME = value`, `"name": "value"`, `name: value`, `NAME := value`, `name => value` where the name says secret.
 * Strong names (password, secret, api key...) take any non-placeholder value of 4+ characters; weak names
 * (token, *_key, signature) only take values that look machine-generated.
 */
export function assignmentAccept(value: string, m: RegExpExecArray, text: string): boolean {
  if (isPlaceholder(value)) return false;
  const quoted = m[1] !== undefined || m[2] !== undefined;
  if (!quoted && (CODE_REFERENCE.test(value) || computedValue(value, text, m.index + m[0].length))) return false;
  const name = m[0].slice(0, m[0].search(/["']?\s{0,3}(?::=|=>|[:=])/));
  // `pw` only as a word of its own (DB_PW, pw:), not inside one (npw, pwsh).
  if (/^pw/i.test(name) && (/[A-Za-z]/.test(text.charAt(m.index - 1)) || /^pw[a-z]/i.test(name))) return false;
  if (STRONG_NAME.test(name)) return value.length >= 4;
  return looksRandom(value, 12);
}

const NAME =
  '(?:pass(?:word|wd|phrase)?|pwd?|secret|private[_-]?key|credentials?|creds|access[_-]?key|api[_-]?key|apikey|auth[_-]?token|salt|token|_key|-key|_pat(?![a-z])|signature)';
const VALUE = `(?:"([^"\\r\\n]{1,512})"|'([^'\\r\\n]{1,512})'|([^\\s"'\`,;(){}\\[\\]<>\\\\]{1,512}))`;

const FLAG_VALUE = `(?:"([^"\\r\\n]{1,256})"|'([^'\\r\\n]{1,256})'|([^\\s"'\`;|&<>()]{1,256}))`;

/** The value after `context`, a pattern source ending where the password starts; never a reference or a flag. */
const passwordAfter = (context: string): Rule => ({
  type: 'secret_assignment',
  pattern: new RegExp(`(?<![\\w.-])${context}${FLAG_VALUE}`, 'dg'),
  accept: (v) => !isPlaceholder(v) && !/^[-$]/.test(v),
});

/** Secrets identified by their surroundings rather than their shape. */
export const CONTEXT_RULES: readonly Rule[] = [
  {
    type: 'secret_assignment',
    pattern: new RegExp(`${NAME}[A-Za-z0-9_.-]{0,40}["']?\\s{0,3}(?::=|=>|[:=])\\s{0,3}${VALUE}`, 'dgi'),
    accept: assignmentAccept,
  },
  {
    type: 'secret_assignment',
    // Command-line flags: --password hunter2, --api-key=..., --token ...
    pattern:
      /(?<![\w-])--[a-z-]{0,20}(?:password|passwd|token|secret|api-key|apikey|access-key)[= ]["']?([^\s"']{4,512})/dgi,
    accept: (v) => !isPlaceholder(v) && !v.startsWith('-'),
  },
  // Passwords where the commands that take them put them: `mysql -pPW` (attached: `-p PW` prompts and reads PW as
  // the database), `sshpass -p PW`, `docker login -p PW` (and podman, az...), `redis-cli -a PW`,
  // `smbclient -U user%PW`, and ~/.netrc entries.
  passwordAfter(
    '(?:mysql(?:dump|admin|import|check|sh|binlog)?|mariadb(?:-dump|-admin|-import|-check)?)(?![\\w.-])[^\\n|;&]{0,200}?\\s-p',
  ),
  passwordAfter('sshpass\\s+-p\\s*'),
  passwordAfter(
    '(?:docker|podman|nerdctl|buildah|skopeo|helm\\s+registry|az)\\s+login(?![\\w-])[^\\n|;&]{0,200}?\\s-p\\s*',
  ),
  passwordAfter('redis-cli(?![\\w-])[^\\n|;&]{0,200}?\\s-a\\s+'),
  passwordAfter('smbclient(?![\\w-])[^\\n|;&]{0,200}?\\s-U\\s*[^\\s%]{1,128}%'),
  // ~/.netrc: machine HOST [login NAME] [account NAME] password PW, on one line or several.
  passwordAfter('machine\\s+\\S{1,253}(?:\\s+(?:login|account)\\s+\\S{1,256}){0,2}\\s+password\\s+'),
  {
    type: 'secret_assignment',
    // In prose: "the password is Zq8mnP2xq", "password for prod was hunter22". Only values mixing letters with
    // digits or symbols, so that "the password is required" stays.
    pattern:
      /(?<![A-Za-z])(?:pass(?:word|wd|phrase)|pw)(?:\s+(?:for|of|on|to)\s+[^\s]{1,40})?\s+(?:is|was)\s+["'`]?([^\s"'`,;]{3,127}[^\s"'`,;.!?:)])/dgi,
    accept: (v) =>
      !isPlaceholder(v) && /[A-Za-z]/.test(v) && (/\d/.test(v) || /[^A-Za-z0-9_.-]/.test(v)) && !/^[$%{<]/.test(v),
  },
  {
    type: 'basic_auth',
    // curl -u user:password
    pattern: /(?<![\w-])(?:-u|--user)\s+["']?[^\s:"']{1,128}:([^\s"']{1,256})/dg,
    accept: (v) => !isPlaceholder(v),
  },
  {
    type: 'url_credentials',
    // scheme://user:password@host: database URLs, basic-auth URLs, proxies, git remotes. Anchored on `://`;
    // the scheme before it is checked in `accept`.
    pattern: /:\/\/[^\s:/?#@"'<>]{0,128}:([^\s/?#@"'<>]{1,256})@(?=[A-Za-z0-9[])/dg,
    accept: (v, m, text) =>
      !isPlaceholder(v) &&
      /(?:^|[^A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}$/.test(text.slice(Math.max(0, m.index - 33), m.index)),
  },
  {
    type: 'authorization_header',
    pattern:
      /(?:proxy-authorization|authorization)["']?\s{0,3}[:=]\s{0,3}["']?(?:(?:bearer|basic|token|bot|digest|apikey|sso-key)\s+)?([^\s"',;\\]{6,4096})/dgi,
    accept: (v) => !isPlaceholder(v) && !/^(?:bearer|basic|token|required|header)$/i.test(v),
  },
  {
    type: 'bearer_token',
    pattern: /(?<![A-Za-z])[Bb]earer\s+([A-Za-z0-9._~+/=-]{16,4096})/dg,
    accept: (v) => !isPlaceholder(v) && (looksRandom(v, 16) || v.includes('.')),
  },
  {
    type: 'cookie',
    pattern: /(?<![A-Za-z-])(?:set-cookie|cookie)["']?\s{0,3}:\s{0,3}["']?([^\r\n"']{3,4096})/dgi,
    accept: (v) => v.includes('=') && !isPlaceholder(v),
  },
  {
    type: 'aws_secret_key',
    pattern: /secret[ _-]?access[ _-]?key[^\n]{0,24}?[:=]\s{0,3}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dgi,
    accept: (v) => !isPlaceholder(v),
  },
];
