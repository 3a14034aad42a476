// Builds bench/scrub/corpora/secrets/secrets.json: fake credentials of real shape from 40+ providers, embedded in
// transcript-shaped text, plus hard negatives that look like secrets and are not. Deterministic (seeded PRNG), so
// the committed file is exactly what this script prints. Every value is random; none is a real credential.
// Usage: node bench/scrub/gen-secrets.js > bench/scrub/corpora/secrets/secrets.json
import { createHash } from 'node:crypto';
import { wordlist as english } from '@scure/bip39/wordlists/english';

const SEED = 0x5c7ab;

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const int = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[int(xs.length)];

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}-_`;
const str = (alphabet, n) => Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join('');
const bytes = (n) => Buffer.from(Array.from({ length: n }, () => int(256)));
const uuid = () => `${str(HEX, 8)}-${str(HEX, 4)}-4${str(HEX, 3)}-${pick('89ab')}${str(HEX, 3)}-${str(HEX, 12)}`;
const b64url = (s) => Buffer.from(s).toString('base64url');

function pem(kind) {
  const body = bytes(kind === 'RSA' ? 1190 : 120)
    .toString('base64')
    .match(/.{1,64}/g)
    .join('\n');
  const label = { RSA: 'RSA PRIVATE KEY', EC: 'EC PRIVATE KEY', PKCS8: 'PRIVATE KEY', OPENSSH: 'OPENSSH PRIVATE KEY' }[
    kind
  ];
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
}

function mnemonic(words) {
  const entropy = bytes((words * 11 * 32) / 33 / 8);
  const hash = createHash('sha256').update(entropy).digest();
  const bits = [...entropy, ...hash]
    .map((b) => b.toString(2).padStart(8, '0'))
    .join('')
    .slice(0, words * 11);
  return bits
    .match(/.{11}/g)
    .map((b) => english[Number.parseInt(b, 2)])
    .join(' ');
}

function jwt() {
  const header = b64url(JSON.stringify({ alg: pick(['HS256', 'RS256', 'ES256']), typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ sub: str(DIGITS, 10), iat: 1700000000 + int(1e7), scope: 'read write' }));
  return `${header}.${payload}.${str(B64URL, 43)}`;
}

const password = () =>
  pick([
    () => `${pick(['Summer', 'Winter', 'Dragon', 'Monkey', 'Falcon'])}${1990 + int(35)}${pick(['!', '#', '$', '@'])}`,
    () => str(`${ALNUM}!#%&*`, 12 + int(10)),
    () => `${pick(english)}-${pick(english)}-${pick(english)}-${int(100)}`,
  ])();

/**
 * Providers: each yields [secret, ...contexts] where a context is a function from the secret to a line of text
 * that shows it the way it would appear in a terminal, config file or chat (or to [line, the secret as shown]).
 */
const env = (name) => (v) => `${name}=${v}`;
const exportEnv = (name) => (v) => `export ${name}="${v}"`;
const yaml = (name) => (v) => `${name}: ${v}`;
const json = (name) => (v) => `{"${name}": "${v}", "region": "us-east-1"}`;
const chat = (what) => (v) => `User: here is my ${what}: ${v} can you check why the request fails?`;
const code = (ctor, field) => (v) => `const client = new ${ctor}({ ${field}: "${v}" });`;
const bearer = (v) => `curl -s -H "Authorization: Bearer ${v}" https://api.example.com/v1/me`;

const PROVIDERS = {
  aws_access_key: [
    () => `AKIA${str(`${UPPER}234567`, 16)}`,
    env('AWS_ACCESS_KEY_ID'),
    yaml('aws_access_key_id'),
    chat('access key'),
    json('accessKeyId'),
  ],
  aws_secret_key: [
    () => str(B64, 40),
    (v) => `aws_secret_access_key = ${v}`,
    env('AWS_SECRET_ACCESS_KEY'),
    (v) => `AWS Secret Access Key [None]: ${v}`,
  ],
  github_classic: [
    () => `ghp_${str(ALNUM, 36)}`,
    env('GITHUB_TOKEN'),
    bearer,
    (v) => `git clone https://${v}@github.com/acme/app.git`,
    chat('github token'),
  ],
  github_fine_grained: [
    () => `github_pat_${str(ALNUM, 22)}_${str(ALNUM, 59)}`,
    env('GH_TOKEN'),
    yaml('token'),
    chat('PAT'),
  ],
  github_oauth: [() => `gho_${str(ALNUM, 36)}`, json('access_token'), bearer],
  gitlab: [
    () => `glpat-${str(`${ALNUM}_-`, 20)}`,
    (v) => `curl --header "PRIVATE-TOKEN: ${v}" https://gitlab.com/api/v4/projects`,
    env('GITLAB_TOKEN'),
    chat('gitlab token'),
  ],
  slack_bot: [
    () => `xoxb-${str(DIGITS, 12)}-${str(DIGITS, 13)}-${str(ALNUM, 24)}`,
    env('SLACK_BOT_TOKEN'),
    code('WebClient', 'token'),
    bearer,
  ],
  slack_webhook: [
    () => `https://hooks.slack.com/services/T${str(UPPER + DIGITS, 8)}/B${str(UPPER + DIGITS, 10)}/${str(ALNUM, 24)}`,
    env('SLACK_WEBHOOK_URL'),
    (v) => `curl -X POST -d '{"text":"deploy done"}' ${v}`,
  ],
  stripe_live: [
    () => `sk_live_${str(ALNUM, 24 + int(76))}`,
    env('STRIPE_SECRET_KEY'),
    code('Stripe', 'apiKey'),
    chat('stripe key'),
  ],
  stripe_test: [() => `sk_test_${str(ALNUM, 24 + int(76))}`, env('STRIPE_API_KEY'), (v) => `stripe.api_key = "${v}"`],
  stripe_restricted: [() => `rk_live_${str(ALNUM, 24 + int(76))}`, yaml('stripe_key'), chat('restricted key')],
  openai: [
    () => `sk-proj-${str(`${ALNUM}_-`, 74)}T3BlbkFJ${str(`${ALNUM}_-`, 74)}`,
    env('OPENAI_API_KEY'),
    code('OpenAI', 'apiKey'),
    bearer,
  ],
  openai_legacy: [() => `sk-${str(ALNUM, 20)}T3BlbkFJ${str(ALNUM, 20)}`, env('OPENAI_API_KEY'), chat('openai key')],
  anthropic: [
    () => `sk-ant-api03-${str(`${ALNUM}_-`, 93)}AA`,
    env('ANTHROPIC_API_KEY'),
    (v) => `curl https://api.anthropic.com/v1/messages -H "x-api-key: ${v}"`,
    code('Anthropic', 'apiKey'),
  ],
  google_api_key: [
    () => `AIza${str(`${ALNUM}_-`, 35)}`,
    (v) => `https://maps.googleapis.com/maps/api/geocode/json?address=x&key=${v}`,
    env('GOOGLE_API_KEY'),
    json('apiKey'),
  ],
  gcp_service_account: [
    () => pem('PKCS8'),
    (v) =>
      JSON.stringify(
        {
          type: 'service_account',
          project_id: 'acme-prod',
          private_key_id: str(HEX, 40),
          private_key: `${v}\n`,
          client_email: 'deployer@acme-prod.iam.gserviceaccount.com',
        },
        null,
        2,
      ),
  ],
  azure_storage: [
    () => `${str(B64, 86)}==`,
    (v) => `DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=${v};EndpointSuffix=core.windows.net`,
  ],
  azure_client_secret: [
    () => `${str(ALNUM, 3)}8Q~${str(`${ALNUM}_~.-`, 34)}`,
    env('AZURE_CLIENT_SECRET'),
    json('clientSecret'),
  ],
  npm: [() => `npm_${str(ALNUM, 36)}`, (v) => `//registry.npmjs.org/:_authToken=${v}`, env('NPM_TOKEN')],
  pypi: [
    () => `pypi-AgEIcHlwaS5vcmc${str(B64URL, 70 + int(80))}`,
    (v) => `[pypi]\n  username = __token__\n  password = ${v}`,
    env('TWINE_PASSWORD'),
  ],
  twilio_api_key: [() => `SK${str(HEX, 32)}`, env('TWILIO_API_KEY'), chat('twilio key')],
  twilio_auth_token: [() => str(HEX, 32), env('TWILIO_AUTH_TOKEN'), json('authToken')],
  sendgrid: [() => `SG.${str(`${ALNUM}_-`, 22)}.${str(`${ALNUM}_-`, 43)}`, env('SENDGRID_API_KEY'), bearer],
  mailgun: [
    () => `key-${str(HEX, 32)}`,
    env('MAILGUN_API_KEY'),
    (v) => `curl -s --user 'api:${v}' https://api.mailgun.net/v3/mg.example.com/messages`,
  ],
  shopify: [() => `shpat_${str(HEX, 32)}`, (v) => `X-Shopify-Access-Token: ${v}`, env('SHOPIFY_ACCESS_TOKEN')],
  discord_bot: [
    () => `M${str(ALNUM, 25)}.${str(`${ALNUM}_-`, 6)}.${str(`${ALNUM}_-`, 38)}`,
    env('DISCORD_TOKEN'),
    (v) => `client.login("${v}")`,
    (v) => `Authorization: Bot ${v}`,
  ],
  discord_webhook: [
    () => `https://discord.com/api/webhooks/${str(DIGITS, 18)}/${str(`${ALNUM}_-`, 68)}`,
    env('DISCORD_WEBHOOK'),
  ],
  telegram_bot: [
    () => `${1 + int(8)}${str(DIGITS, 8)}:AA${str(`${ALNUM}_-`, 33)}`,
    env('TELEGRAM_BOT_TOKEN'),
    (v) => `curl https://api.telegram.org/bot${v}/getMe`,
  ],
  digitalocean: [() => `dop_v1_${str(HEX, 64)}`, env('DIGITALOCEAN_TOKEN'), bearer],
  heroku: [() => `HRKU-AA${str(`${ALNUM}_-`, 58)}`, env('HEROKU_API_KEY'), chat('heroku key')],
  heroku_legacy: [uuid, env('HEROKU_API_KEY'), yaml('heroku_api_key')],
  vault: [() => `hvs.${str(`${ALNUM}_-`, 90)}`, env('VAULT_TOKEN'), (v) => `X-Vault-Token: ${v}`],
  datadog_api: [
    () => str(HEX, 32),
    env('DD_API_KEY'),
    (v) => `curl -H "DD-API-KEY: ${v}" https://api.datadoghq.com/api/v1/validate`,
  ],
  datadog_app: [() => str(HEX, 40), env('DD_APP_KEY'), yaml('datadog_app_key')],
  huggingface: [() => `hf_${str(ALNUM, 34)}`, env('HF_TOKEN'), bearer],
  jwt: [jwt, bearer, json('id_token'), (v) => `Set-Cookie: auth=${v}; Path=/; HttpOnly`, chat('session token')],
  pem_private_key: [
    () => pem(pick(['RSA', 'EC', 'OPENSSH'])),
    (v) => `$ cat ~/.ssh/id_deploy\n${v}`,
    (v) => {
      const shown = v.replace(/\n/g, '\n    ');
      return [`tls:\n  key: |\n    ${shown}`, shown];
    },
  ],
  ethereum_private_key: [
    () => `0x${str(HEX, 64)}`,
    env('PRIVATE_KEY'),
    (v) => `const signer = new Wallet("${v}", provider);`,
    json('privateKey'),
    (v) => `deployer private key: ${v}`,
  ],
  bip39_mnemonic: [
    () => mnemonic(pick([12, 12, 24])),
    (v) => `MNEMONIC="${v}"`,
    (v) => `User: my wallet seed phrase is ${v}`,
    json('mnemonic'),
  ],
  // For URLs the secret is the password; the rest of the URL may stay.
  database_url: [
    () => str(ALNUM, 16),
    (v) => `DATABASE_URL=postgres://app_user:${v}@db-${str(LOWER, 6)}.internal:5432/app`,
    (v) => `url: mysql://root:${v}@127.0.0.1:3306/shop`,
    (v) => `MONGO_URI="mongodb+srv://svc:${v}@cluster0.${str(LOWER, 5)}.mongodb.net/prod?retryWrites=true"`,
    (v) => `User: the connection string is redis://default:${v}@cache.internal:6379/0`,
  ],
  basic_auth_url: [
    () => password().replace(/[@#/?%]/g, 'x'),
    (v) => `git remote add origin https://deploy:${v}@git.example.com/acme/app.git`,
    (v) => `pip install --index-url https://ci:${v}@pypi.example.com/simple pkg`,
    (v) => `HTTPS_PROXY=http://proxyuser:${v}@proxy.corp:3128`,
  ],
  env_secret: [password, env('DB_PASSWORD'), env('SESSION_SECRET'), env('JWT_SECRET'), exportEnv('ADMIN_PASSWORD')],
  bearer_header: [() => str(`${ALNUM}._-`, 32 + int(32)), bearer, (v) => `Authorization: Bearer ${v}`],
  cookie: [
    () => `session=${str(`${ALNUM}%`, 40)}; csrftoken=${str(ALNUM, 32)}`,
    (v) => `Cookie: ${v}`,
    (v) => `curl -H 'Cookie: ${v}' https://app.example.com/admin`,
  ],
  password_assignment: [
    password,
    yaml('password'),
    json('password'),
    (v) => `db.connect(host="db", user="app", password="${v}")`,
    (v) => `mysql -u root --password=${v}`,
  ],
  base64_secret: [
    () => Buffer.from(`password=${password()}`).toString('base64'),
    (v) => `$ echo ${v} | base64 -d`,
    (v) => `data:\n  DB_CONFIG: ${v}`,
  ],
};

/** Wraps a line as it reaches a transcript: raw, in a tool_result (JSON-escaped once) or in a JSONL event (twice). */
const WRAPPERS = [
  (line) => ({ text: `$ ${line.includes('\n') ? `cat notes.txt\n${line}` : line}\n`, levels: 0 }),
  (line) => ({ text: `Assistant: I found this in the logs:\n\n${line}\n\nLet me fix the config.`, levels: 0 }),
  (line) => ({
    text: JSON.stringify({ type: 'tool_result', tool_use_id: `toolu_${str(ALNUM, 24)}`, content: line }),
    levels: 1,
  }),
  (line) => {
    const inner = JSON.stringify({ type: 'tool_result', content: `stdout:\n${line}\nexit 0` });
    return {
      text: JSON.stringify({ type: 'user', sessionId: uuid(), message: { role: 'user', content: inner } }),
      levels: 2,
    };
  },
];
const escapeLevels = (s, levels) => {
  let out = s;
  for (let i = 0; i < levels; i++) out = JSON.stringify(out).slice(1, -1);
  return out;
};

const samples = [];
for (const [provider, [make, ...contexts]] of Object.entries(PROVIDERS)) {
  const n = Math.max(8, contexts.length * 2);
  for (let i = 0; i < n; i++) {
    const secret = make();
    // A context may show the secret transformed (indented, JSON-escaped): the span covers what is shown.
    const out = contexts[i % contexts.length](secret);
    const [line, shown] = Array.isArray(out) ? out : [out, secret];
    const inLine = line.includes(shown) ? shown : escapeLevels(shown, 1);
    const { text, levels } = WRAPPERS[(i + int(2)) % WRAPPERS.length](line);
    const encoded = escapeLevels(inLine, levels);
    const start = text.indexOf(encoded);
    if (start < 0) throw new Error(`secret not found in sample for ${provider}`);
    samples.push({
      id: `pos-${provider}-${i}`,
      label: 'secret',
      provider,
      text,
      spans: [{ start, end: start + encoded.length }],
    });
  }
}

/** Things that look like secrets and are not. */
const png = () =>
  Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), bytes(200 + int(400))]).toString('base64');
const NEGATIVES = {
  git_sha: [
    () =>
      `commit ${str(HEX, 40)}\nMerge: ${str(HEX, 7)} ${str(HEX, 7)}\nDate:   Mon Nov 3 10:${10 + int(49)}:00 2025\n\n    fix: retry on timeout`,
    () => `$ git rev-parse HEAD\n${str(HEX, 40)}`,
    () => `HEAD is now at ${str(HEX, 7)} chore: bump deps`,
    () => `{"sha": "${str(HEX, 40)}", "message": "merge branch main"}`,
  ],
  uuid: [
    () => `request_id=${uuid()} status=200 duration_ms=${int(900)}`,
    () => `{"id": "${uuid()}", "type": "message", "role": "assistant"}`,
    () => `Created volume ${uuid()}`,
    () => `trace ${uuid()} span ${str(HEX, 16)}`,
  ],
  sha256: [
    () => `${str(HEX, 64)}  dist/app-${int(9)}.${int(20)}.${int(20)}.tar.gz`,
    () => `"sha256": "${str(HEX, 64)}"`,
    () => `Digest (sha256): ${str(HEX, 64)}`,
    () => `checksum mismatch: expected ${str(HEX, 64)}, got ${str(HEX, 64)}`,
  ],
  tx_hash: [
    () => `tx hash: 0x${str(HEX, 64)}`,
    () => `{"transactionHash": "0x${str(HEX, 64)}", "blockHash": "0x${str(HEX, 64)}"}`,
    () => `contract deployed at 0x${str(HEX, 40)}`,
  ],
  base64_png: [
    () => `data:image/png;base64,${png()}`,
    () => JSON.stringify({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png() } }),
  ],
  placeholder: [
    () => 'OPENAI_API_KEY=sk-...',
    () => 'export API_KEY=YOUR_API_KEY',
    () => 'curl -H "Authorization: Bearer <token>" https://api.example.com',
    () => 'password: ${DB_PASSWORD}',
    () => '{"token": "<your-token-here>"}',
    () => 'AWS_SECRET_ACCESS_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    () => 'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    () => '"apiKey": "REPLACE_ME"',
    () => 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
    () => 'STRIPE_SECRET_KEY=sk_test_...',
    () => 'password = os.environ["DB_PASSWORD"]',
    () => 'const token = await getToken();',
    () => 'token: process.env.SLACK_TOKEN',
    () => 'DATABASE_URL=postgres://user:password@localhost:5432/app',
    () => 'Set your key with `export ANTHROPIC_API_KEY=<key>`',
    () => 'api_key: "********"',
    () => 'password: string;',
    () => '"max_tokens": 4096',
    () => 'SECRET_KEY=changeme',
    () => 'Authorization: Bearer $TOKEN',
  ],
  integrity: [
    () => `"integrity": "sha512-${str(B64, 86)}=="`,
    () =>
      `"resolved": "https://registry.npmjs.org/${pick(['lodash', 'zod', 'undici'])}/-/${pick(['lodash', 'zod', 'undici'])}-${int(9)}.${int(20)}.${int(20)}.tgz",\n"integrity": "sha1-${str(B64, 27)}="`,
  ],
  docker_digest: [
    () => `node@sha256:${str(HEX, 64)}`,
    () => `Digest: sha256:${str(HEX, 64)}\nStatus: Downloaded newer image for node:20-alpine`,
    () => `REPOSITORY   TAG   IMAGE ID       CREATED\nacme/api     ${int(9)}.${int(9)}   ${str(HEX, 12)}   2 days ago`,
  ],
  hex_color: [
    () => `color: #${str(HEX, 6)}; background: #${str(HEX, 3)};`,
    () => `"theme": {"primary": "#${str(HEX, 6)}", "accent": "#${str(HEX, 8)}"}`,
  ],
  file_path: [
    () =>
      `/usr/local/lib/node_modules/@${pick(['acme', 'types', 'babel'])}/${pick(['core', 'runtime', 'parser'])}/dist/esm/internal/${str(LOWER, 12)}-${str(LOWER, 8)}.generated.js`,
    () => `/var/lib/docker/overlay2/${str(HEX, 64)}/merged/app/node_modules/.cache/babel-loader/${str(HEX, 32)}.json`,
    () =>
      `D:\\a\\_work\\1\\s\\src\\${pick(['Services', 'Controllers'])}\\${str(UPPER, 1)}${str(LOWER, 10)}Controller.cs(${int(300)},${int(80)}): warning CS8618`,
    () =>
      `node_modules/.pnpm/${pick(['react', 'vite', 'esbuild'])}@${int(20)}.${int(10)}.${int(10)}_${str(LOWER, 20)}/node_modules/${pick(['react', 'vite', 'esbuild'])}/index.js`,
  ],
  versions_ids: [
    () => `Microsoft Windows [Version 10.0.${19000 + int(4000)}.${int(5000)}]`,
    () => `"created_at": ${1700000000 + int(1e8)}, "updated_at": ${1700000000000 + int(1e11)}`,
    () => `pid ${int(60000)} exited with code ${int(3)} after ${int(9000)}ms`,
    () => `Object ID: ${str(HEX, 24)} (mongodb)`,
  ],
  prose: [
    () =>
      `The ${pick(english)} ${pick(english)} uses a token bucket with a refill rate of ${int(100)} per second; the secret is to batch writes.`,
    () => `Password resets are handled by the auth service; see docs/auth.md for the flow.`,
  ],
};
const negKinds = Object.entries(NEGATIVES);
for (let i = 0; i < 330; i++) {
  const [kind, makers] = negKinds[i % negKinds.length];
  const line = makers[int(makers.length)]();
  const { text } = WRAPPERS[int(WRAPPERS.length)](line);
  samples.push({ id: `neg-${kind}-${i}`, label: 'negative', provider: kind, text, spans: [] });
}

process.stdout.write(`${JSON.stringify({ seed: SEED, generator: 'bench/scrub/gen-secrets.js', samples }, null, 1)}\n`);
