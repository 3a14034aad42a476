// Writes an outsider's blind set: transcript snippets with a secret or a personal datum inside, each with the exact
// spans that must be removed, and decoys that must stay. Written before the scrubber's sources or corpora were read.
// Every key body is random text from a seeded PRNG in the shape of a public format; none is a real credential.
// node bench/scrub/gen-outsider.js <seed> <set> > bench/scrub/corpora/outsider/<file>.jsonl
import { Buffer } from 'node:buffer';

const seed = Number(process.argv[2] ?? 20261129);
const set = process.argv[3] ?? 'a';
let state = seed >>> 0;
const rnd = () => {
  // mulberry32
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (s) => s[Math.floor(rnd() * s.length)];
const from = (alphabet) => (n) => Array.from({ length: n }, () => pick(alphabet)).join('');
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIG = '0123456789';
const alnum = from(LOWER + UPPER + DIG);
const lowalnum = from(LOWER + DIG);
const upalnum = from(UPPER + DIG);
const hex = from('0123456789abcdef');
const b64url = from(`${LOWER + UPPER + DIG}-_`);
const b64 = from(`${LOWER + UPPER + DIG}+/`);
const digits = from(DIG);
const letters = from(LOWER + UPPER);
const base32 = from('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567');
const nz = () => pick('123456789');
const bytesB64 = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256))).toString('base64');
const b64u = (s) => Buffer.from(s).toString('base64url');

// Secrets are wrapped in private-use markers; the builder strips them and records the spans.
const S = (v) => `\uE000${v}\uE001`;
const samples = [];
let n = 0;
const add = (kind, context, raw, decoy = false) => {
  const spans = [];
  let text = '';
  let open = -1;
  for (const ch of raw) {
    if (ch === '\uE000') open = text.length;
    else if (ch === '\uE001') {
      spans.push({ start: open, end: text.length, value: text.slice(open, text.length) });
      open = -1;
    } else text += ch;
  }
  if (decoy && spans.length) throw new Error('decoy with spans');
  if (!decoy && !spans.length) throw new Error(`no span: ${kind}`);
  n += 1;
  samples.push({ id: `${set}${String(n).padStart(3, '0')}`, kind, decoy, context, text, spans });
};
// A JSONL tool_result event whose content holds the marked text (escaped once, as on disk).
const toolResult = (inner) =>
  JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_01${alnum(22)}`, content: inner }] },
  });

const luhn = (body) => {
  let sum = 0;
  const ds = body.split('').reverse();
  for (let i = 0; i < ds.length; i++) {
    let d = Number(ds[i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
};
const card = (prefix, len) => {
  const body = prefix + digits(len - prefix.length - 1);
  return body + luhn(body);
};
const iban = (cc, bban) => {
  const re = `${bban}${cc}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let m = 0;
  for (const ch of re) m = (m * 10 + Number(ch)) % 97;
  return cc + String(98 - m).padStart(2, '0') + bban;
};
const group4 = (s) => s.replace(/(.{4})/g, '$1 ').trim();
const pem = (label, bytes, width = 64) => {
  const body = bytesB64(bytes)
    .replace(new RegExp(`(.{${width}})`, 'g'), '$1\n')
    .trim();
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
};
const jwt = (payload, alg = 'HS256') =>
  `${b64u(JSON.stringify({ alg, typ: 'JWT' }))}.${b64u(JSON.stringify(payload))}.${b64url(43)}`;
const pw = () => `${alnum(6)}${pick('!#%*')}${alnum(5)}${digits(2)}${alnum(3)}`;
const pwUrlSafe = () => `${alnum(9)}${digits(3)}${alnum(6)}`;

if (set === 'a') {
  // ---------------------------------------------------------------- secrets
  const openai = `sk-proj-${b64url(74)}T3BlbkFJ${b64url(74)}`;
  add('openai_key', '.env cat', `$ cat .env\nNODE_ENV=development\nOPENAI_API_KEY=${S(openai)}\nLOG_LEVEL=debug\n`);
  add(
    'openai_key',
    'python literal',
    `from openai import OpenAI\n\nclient = OpenAI(api_key="${S(`sk-svcacct-${b64url(74)}T3BlbkFJ${b64url(74)}`)}")\nresp = client.responses.create(model="gpt-4.1-mini", input="ping")\n`,
  );
  add(
    'openai_key',
    'curl header',
    `curl https://api.openai.com/v1/models -H "Authorization: Bearer ${S(`sk-${alnum(20)}T3BlbkFJ${alnum(20)}`)}"`,
  );
  add(
    'openai_key',
    'admin key in tool_result',
    toolResult(
      `Found 1 match\nscripts/usage.ts:4: const ADMIN = process.env.OPENAI_ADMIN_KEY ?? '${S(`sk-admin-${b64url(74)}T3BlbkFJ${b64url(74)}`)}';`,
    ),
  );
  add(
    'anthropic_key',
    'shell history',
    `  512  export ANTHROPIC_API_KEY=${S(`sk-ant-api03-${b64url(93)}AA`)}\n  513  claude -p "summarise the diff"\n`,
  );
  add(
    'anthropic_key',
    'jsonl tool_result env',
    toolResult(
      `$ env | grep -i anthropic\nANTHROPIC_API_KEY=${S(`sk-ant-api03-${b64url(93)}AA`)}\nANTHROPIC_MODEL=claude-sonnet-4-5\n`,
    ),
  );
  add(
    'anthropic_oauth',
    'credentials.json',
    `$ cat ~/.claude/.credentials.json\n{"claudeAiOauth":{"accessToken":"${S(`sk-ant-oat01-${b64url(93)}AA`)}","refreshToken":"${S(`sk-ant-ort01-${b64url(93)}AA`)}","expiresAt":1764431000000,"scopes":["user:inference"]}}`,
  );
  add(
    'github_token',
    'git remote url',
    `$ git remote set-url origin https://${S(`github_pat_11${upalnum(20)}_${alnum(59)}`)}@github.com/acme/infra.git\n$ git push origin main`,
  );
  add(
    'github_token',
    'gh hosts.yml',
    `# ~/.config/gh/hosts.yml\ngithub.com:\n    user: mtanaka\n    oauth_token: ${S(`ghp_${alnum(36)}`)}\n    git_protocol: https\n`,
  );
  add('github_token', 'command output', `$ gh auth token\n${S(`gho_${alnum(36)}`)}\n$ `);
  add(
    'github_token',
    'actions log',
    `2026-11-20T09:14:02.1184520Z [command]/usr/bin/git clone https://x-access-token:${S(`ghs_${alnum(36)}`)}@github.com/acme/web.git /home/runner/work/web\n`,
  );
  add(
    'gitlab_token',
    'curl header',
    `curl --header "PRIVATE-TOKEN: ${S(`glpat-${b64url(20)}`)}" "https://gitlab.com/api/v4/projects/4812/pipelines?status=failed"`,
  );
  add(
    'gitlab_token',
    'git credential url (routable format)',
    `fatal: unable to access 'https://oauth2:${S(`glpat-${b64url(27)}.01.${lowalnum(9)}`)}@gitlab.acme.dev/platform/api.git/': The requested URL returned error: 403`,
  );
  add(
    'gitlab_token',
    'runner token',
    `gitlab-runner register --non-interactive --url https://gitlab.com --token ${S(`glrt-${b64url(20)}`)} --executor docker`,
  );
  add(
    'slack_token',
    'python literal',
    `from slack_sdk import WebClient\nclient = WebClient(token="${S(`xoxb-${digits(12)}-${digits(13)}-${alnum(24)}`)}")\nclient.chat_postMessage(channel="#deploys", text="done")`,
  );
  add(
    'slack_token',
    'json config',
    `{\n  "slack": {\n    "user_token": "${S(`xoxp-${digits(12)}-${digits(12)}-${digits(13)}-${hex(32)}`)}",\n    "channel": "C07${upalnum(8)}"\n  }\n}`,
  );
  add(
    'slack_token',
    'env',
    `SLACK_APP_TOKEN=${S(`xapp-1-A0${upalnum(9)}-${digits(13)}-${hex(64)}`)}\nSLACK_SIGNING_SECRET=${S(hex(32))}\n`,
  );
  add(
    'slack_webhook',
    'log line',
    `[notify] POST https://hooks.slack.com/services/T0${upalnum(8)}/B0${upalnum(9)}/${S(alnum(24))} -> 200 ok`,
  );
  add(
    'stripe_key',
    'diff hunk',
    `diff --git a/.env.production b/.env.production\n@@ -3,2 +3,3 @@\n DATABASE_POOL=20\n-STRIPE_SECRET_KEY=\n+STRIPE_SECRET_KEY=${S(`sk_live_51${alnum(97)}`)}\n+STRIPE_PRICE_PRO=price_1Q${alnum(22)}\n`,
  );
  add(
    'stripe_key',
    'terraform tfvars',
    `# terraform.tfvars\nstripe_restricted_key = "${S(`rk_live_51${alnum(97)}`)}"\nregion                = "eu-west-1"\n`,
  );
  add(
    'stripe_webhook_secret',
    'stripe listen output',
    `$ stripe listen --forward-to localhost:3000/api/webhooks\n> Ready! You are using Stripe API Version [2025-10-29.clover]. Your webhook signing secret is ${S(`whsec_${alnum(32)}`)} (^C to quit)`,
  );
  add('twilio', 'env', `TWILIO_ACCOUNT_SID=AC${hex(32)}\nTWILIO_AUTH_TOKEN=${S(hex(32))}\nTWILIO_FROM=+15005550006\n`);
  add(
    'twilio',
    'code literal api key',
    `const client = twilio('${S(`SK${hex(32)}`)}', '${S(alnum(32))}', { accountSid: 'AC${hex(32)}' });`,
  );
  add(
    'sendgrid_key',
    'python literal',
    `sg = sendgrid.SendGridAPIClient(api_key='${S(`SG.${b64url(22)}.${b64url(43)}`)}')`,
  );
  add('mailgun_key', 'env', `MAILGUN_DOMAIN=mg.acme.io\nMAILGUN_API_KEY=${S(`key-${hex(32)}`)}\n`);
  add(
    'mailgun_key',
    'curl --user',
    `curl -s --user 'api:${S(`${hex(32)}-${hex(8)}-${hex(8)}`)}' https://api.mailgun.net/v3/mg.acme.io/messages -F from='noreply@mg.acme.io'`,
  );
  add('npm_token', '.npmrc', `$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken=${S(`npm_${alnum(36)}`)}\n`);
  add(
    'npm_token',
    '.npmrc private registry',
    `registry=https://artifactory.acme.io/artifactory/api/npm/npm-virtual/\n//artifactory.acme.io/artifactory/api/npm/npm-virtual/:_authToken=${S(`cmVmdGtuOjAxOjE3${b64url(48)}`)}\nalways-auth=true\n`,
  );
  add(
    'pypi_token',
    '.pypirc',
    `[pypi]\n  username = __token__\n  password = ${S(`pypi-AgEIcHlwaS5vcmcCJ${b64url(150)}`)}\n`,
  );
  add(
    'huggingface_token',
    'cli',
    `$ huggingface-cli login --token ${S(`hf_${letters(34)}`)} --add-to-git-credential\nToken is valid (permission: write).`,
  );
  add(
    'google_api_key',
    'curl url query',
    `curl "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=${S(`AIza${b64url(35)}`)}" -H 'Content-Type: application/json' -d @req.json`,
  );
  {
    const key = pem('PRIVATE KEY', 1216).replace(/\n/g, '\\n');
    const sa = `{\n  "type": "service_account",\n  "project_id": "acme-prod-41822",\n  "private_key_id": "${hex(40)}",\n  "private_key": "${S(key)}\\n",\n  "client_email": "deployer@acme-prod-41822.iam.gserviceaccount.com",\n  "client_id": "1${digits(20)}",\n  "token_uri": "https://oauth2.googleapis.com/token"\n}`;
    add('gcp_service_account', 'tool_result cat sa.json', toolResult(`$ cat sa.json\n${sa}`));
  }
  add(
    'azure_storage_key',
    'connection string',
    `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmeprodlogs;AccountKey=${S(`${bytesB64(64)}`)};EndpointSuffix=core.windows.net"`,
  );
  add(
    'azure_client_secret',
    'env',
    `AZURE_TENANT_ID=${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}\nAZURE_CLIENT_ID=${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}\nAZURE_CLIENT_SECRET=${S(`${alnum(3)}8Q~${b64url(31).replace(/-/g, '.')}`)}\n`,
  );
  add(
    'azure_openai_key',
    'curl header',
    `curl "https://acme-oai.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21" -H "api-key: ${S(hex(32))}" -H "Content-Type: application/json"`,
  );
  add(
    'aws_keys',
    'credentials file',
    `$ cat ~/.aws/credentials\n[default]\naws_access_key_id = ${S(`AKIA${base32(16)}`)}\naws_secret_access_key = ${S(b64(40))}\nregion = us-east-1\n`,
  );
  add(
    'aws_keys',
    'sts assume-role output',
    `{\n    "Credentials": {\n        "AccessKeyId": "${S(`ASIA${base32(16)}`)}",\n        "SecretAccessKey": "${S(b64(40))}",\n        "SessionToken": "${S(`IQoJb3JpZ2luX2VjE${b64(380)}`)}",\n        "Expiration": "2026-11-29T16:31:07+00:00"\n    }\n}`,
  );
  add(
    'aws_keys',
    'docker run -e',
    `docker run --rm -e AWS_ACCESS_KEY_ID=${S(`AKIA${base32(16)}`)} -e AWS_SECRET_ACCESS_KEY=${S(b64(40))} amazon/aws-cli s3 ls`,
  );
  add(
    'databricks_token',
    'databrickscfg',
    `[DEFAULT]\nhost  = https://adb-${digits(16)}.7.azuredatabricks.net\ntoken = ${S(`dapi${hex(32)}`)}\n`,
  );
  add('doppler_token', 'cli', `$ doppler configure set token ${S(`dp.pt.${alnum(43)}`)} --scope /srv/app`);
  add(
    'vault_token',
    'vault login output',
    `Success! You are now authenticated.\n\nKey                  Value\n---                  -----\ntoken                ${S(`hvs.CAESI${b64url(86)}`)}\ntoken_accessor       ${alnum(24)}\ntoken_duration       768h`,
  );
  add(
    'database_url',
    'supabase pooler url',
    `DATABASE_URL="postgresql://postgres.${from(LOWER)(20)}:${S(pwUrlSafe())}@aws-0-eu-central-1.pooler.supabase.com:6543/postgres?pgbouncer=true"`,
  );
  add(
    'jwt',
    'supabase service role',
    `NEXT_PUBLIC_SUPABASE_URL=https://${from(LOWER)(20)}.supabase.co\nSUPABASE_SERVICE_ROLE_KEY=${S(jwt({ iss: 'supabase', ref: from(LOWER)(20), role: 'service_role', iat: 1731000000, exp: 2046576000 }))}\n`,
  );
  add('supabase_key', 'env (2025 key format)', `SUPABASE_SECRET_KEY=${S(`sb_secret_${b64url(22)}_${b64url(8)}`)}\n`);
  {
    const id = `1${digits(18)}`;
    add(
      'discord_token',
      'python literal',
      `intents = discord.Intents.default()\nbot = commands.Bot(command_prefix="!", intents=intents)\nbot.run("${S(`${b64u(id)}.G${b64url(5)}.${b64url(38)}`)}")`,
    );
  }
  add(
    'telegram_token',
    'log line',
    `httpx INFO HTTP Request: POST https://api.telegram.org/bot${S(`${nz()}${digits(9)}:AA${b64url(33)}`)}/sendMessage "HTTP/1.1 200 OK"`,
  );
  add('digitalocean_token', 'cli', `$ doctl auth init --context acme --access-token ${S(`dop_v1_${hex(64)}`)}`);
  add(
    'linear_key',
    'mcp config',
    `{\n  "mcpServers": {\n    "linear": {\n      "command": "npx",\n      "args": ["-y", "linear-mcp"],\n      "env": { "LINEAR_API_KEY": "${S(`lin_api_${alnum(40)}`)}" }\n    }\n  }\n}`,
  );
  add('notion_token', 'js literal', `const notion = new Client({ auth: '${S(`secret_${alnum(43)}`)}' });`);
  add(
    'notion_token',
    'mcp headers json-in-json',
    `"env": {\n  "OPENAPI_MCP_HEADERS": "{\\"Authorization\\": \\"Bearer ${S(`ntn_${digits(11)}${alnum(35)}`)}\\", \\"Notion-Version\\": \\"2022-06-28\\"}"\n}`,
  );
  add(
    'shopify_token',
    'curl header',
    `curl -X GET "https://acme-store.myshopify.com/admin/api/2025-07/orders.json?status=any" -H "X-Shopify-Access-Token: ${S(`shpat_${hex(32)}`)}"`,
  );
  {
    const email = `r.okafor@acme-logistics.com`;
    add(
      'atlassian_token',
      'curl -u',
      `curl -u ${S(email)}:${S(`ATATT3xFfGF0${b64url(178)}=${upalnum(8)}`)} -H "Accept: application/json" https://acme.atlassian.net/rest/api/3/myself`,
    );
  }
  add(
    'jwt',
    'log bearer',
    `2026-11-28 22:41:07,311 DEBUG urllib3 headers={'Authorization': 'Bearer ${S(jwt({ sub: '8f14e45f', email_verified: true, scope: 'read:orders write:orders', iat: 1764369600, exp: 1764373200 }, 'RS256'))}'}`,
  );
  add(
    'jwt',
    'set-cookie',
    `< HTTP/2 200\n< set-cookie: __session=${S(jwt({ sid: `sess_${alnum(20)}`, uid: 4812, iat: 1764369600 }))}; Path=/; HttpOnly; Secure; SameSite=Lax\n`,
  );
  add(
    'ssh_private_key',
    'cat id_ed25519',
    `$ cat ~/.ssh/id_ed25519\n${S(`-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n${bytesB64(52).slice(0, 70)}\n${bytesB64(52).slice(0, 70)}\n${bytesB64(52).slice(0, 70)}\n${bytesB64(30).slice(0, 36)}\n-----END OPENSSH PRIVATE KEY-----`)}\n`,
  );
  add(
    'pgp_private_key',
    'gpg export',
    `$ gpg --export-secret-keys --armor 0x${hex(16).toUpperCase()}\n${S(`-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBGc${bytesB64(700).replace(/(.{64})/g, '$1\n')}\n=${b64(4)}\n-----END PGP PRIVATE KEY BLOCK-----`)}\n`,
  );
  {
    const keyB64 = Buffer.from(`${pem('RSA PRIVATE KEY', 900)}\n`).toString('base64');
    add(
      'kubeconfig_key',
      'kubeconfig',
      `users:\n- name: kind-dev\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURJVENDQWdtZ0F3SUJBZ0lJ${b64(40)}\n    client-key-data: ${S(keyB64)}\n`,
    );
  }
  {
    const auth = Buffer.from(`mkowalczyk:dckr_pat_${b64url(27)}`).toString('base64');
    add(
      'docker_auth',
      'docker config.json',
      `$ cat ~/.docker/config.json\n{\n\t"auths": {\n\t\t"https://index.docker.io/v1/": {\n\t\t\t"auth": "${S(auth)}"\n\t\t}\n\t}\n}`,
    );
  }
  add(
    'docker_token',
    'docker login stdin',
    `$ echo ${S(`dckr_pat_${b64url(27)}`)} | docker login -u mkowalczyk --password-stdin\nLogin Succeeded`,
  );
  add(
    'bitbucket_app_password',
    'git-credentials',
    `$ cat ~/.git-credentials\nhttps://jdoe:${S(`ATBB${alnum(32)}${hex(8).toUpperCase()}`)}@bitbucket.org\n`,
  );
  add(
    'sentry_token',
    'sentryclirc',
    `[auth]\ntoken=${S(`sntrys_${b64u(JSON.stringify({ iat: 1764369600.1, url: 'https://sentry.io', region_url: 'https://us.sentry.io', org: 'acme' })).replace(/=+$/, '')}_${b64(43)}`)}\n`,
  );
  add(
    'openrouter_key',
    'ts literal',
    `const openrouter = createOpenRouter({ apiKey: "${S(`sk-or-v1-${hex(64)}`)}" });`,
  );
  add('groq_key', 'env', `GROQ_API_KEY=${S(`gsk_${alnum(52)}`)}\n`);
  add('xai_key', 'shell', `$ XAI_API_KEY=${S(`xai-${alnum(80)}`)} python grok_eval.py --n 20`);
  add('langsmith_key', 'env', `LANGSMITH_TRACING=true\nLANGSMITH_API_KEY=${S(`lsv2_pt_${hex(32)}_${hex(10)}`)}\n`);
  add('pinecone_key', 'python literal', `pc = Pinecone(api_key="${S(`pcsk_${alnum(5)}_${alnum(63)}`)}")`);
  add(
    'tailscale_key',
    'cli',
    `$ sudo tailscale up --authkey=${S(`tskey-auth-k${alnum(10)}CNTRL-${alnum(33)}`)} --hostname=ci-runner-3`,
  );
  add('grafana_token', 'env', `GRAFANA_SERVICE_ACCOUNT_TOKEN=${S(`glsa_${alnum(32)}_${hex(8)}`)}\n`);
  add('postman_key', 'newman', `$ postman login --with-api-key ${S(`PMAK-${hex(24)}-${hex(34)}`)}`);
  add(
    'figma_token',
    'curl header',
    `curl -H "X-Figma-Token: ${S(`figd_${b64url(40)}`)}" https://api.figma.com/v1/files/${alnum(22)}`,
  );
  add('cloudflare_token', 'env', `CLOUDFLARE_ACCOUNT_ID=${hex(32)}\nCLOUDFLARE_API_TOKEN=${S(b64url(40))}\n`);
  add('replicate_token', 'env', `export REPLICATE_API_TOKEN=${S(`r8_${alnum(37)}`)}`);
  add('resend_key', 'ts literal', `const resend = new Resend('${S(`re_${alnum(8)}_${alnum(24)}`)}');`);
  add(
    'onepassword_token',
    'env',
    `OP_SERVICE_ACCOUNT_TOKEN=${S(`ops_${b64u(JSON.stringify({ signInAddress: 'my.1password.com', userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000, salt: b64url(22) }, email: `${lowalnum(26)}@1passwordserviceaccounts.com`, srpX: hex(64), muk: { alg: 'A256GCM', ext: true, k: b64url(43), key_ops: ['encrypt', 'decrypt'], kty: 'oct', kid: 'mp' }, secretKey: `A3-${upalnum(6)}-${upalnum(6)}-${upalnum(5)}-${upalnum(5)}-${upalnum(5)}-${upalnum(5)}`, throttleSecret: { seed: hex(64), deviceUuid: lowalnum(26) }, deviceUuid: lowalnum(26) })).replace(/=+$/, '')}`)}\n`,
  );
  add(
    'database_url',
    'mongodb srv',
    `MongoServerSelectionError: connect ECONNREFUSED\n    at Topology.selectServer (node_modules/mongodb/lib/sdam/topology.js:303:38)\n  uri: 'mongodb+srv://appuser:${S(pwUrlSafe())}@cluster0.${lowalnum(5)}.mongodb.net/?retryWrites=true&w=majority'`,
  );
  add(
    'database_url',
    'redis url',
    `REDIS_URL=redis://default:${S(alnum(32))}@redis-1${digits(4)}.c${digits(3)}.us-east-1-2.ec2.redns.redis-cloud.com:1${digits(4)}`,
  );
  add(
    'password',
    'docker-compose yaml',
    `services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: ${S(pw())}\n    ports: ["5432:5432"]\n`,
  );
  add(
    'password',
    'mysql -p',
    `$ mysql -h db.internal -u root -p'${S(pw())}' -e 'SHOW DATABASES;'\nmysql: [Warning] Using a password on the command line interface can be insecure.`,
  );
  add(
    'ethereum_key',
    'hardhat config',
    `networks: {\n  sepolia: {\n    url: "https://sepolia.infura.io/v3/${hex(32)}",\n    accounts: ["0x${S(hex(64))}"],\n  },\n},`,
  );

  // ---------------------------------------------------------------- personal data
  add(
    'email',
    'git log',
    `commit ${hex(40)}\nAuthor: Priya Raman <${S('priya.raman@fastmail.com')}>\nDate:   Thu Nov 27 14:02:11 2026 +0530\n\n    fix: retry on 429`,
  );
  add(
    'email',
    'package.json',
    `{\n  "name": "@acme/ui",\n  "author": "Mateusz Kowalczyk <${S('m.kowalczyk+npm@gmail.com')}>",\n  "license": "MIT"\n}`,
  );
  add(
    'email',
    'tool_result db row',
    toolResult(
      ` id | email                     | plan\n----+---------------------------+------\n 42 | ${S('hannah.schneider@t-online.de')} | pro\n(1 row)`,
    ),
  );
  add(
    'phone',
    'US fixture',
    `const customer = { name: 'Dana Whitfield', phone: '${S('+1 (415) 867-2309')}', tier: 'gold' };`,
  );
  add('phone', 'UK support ticket', `Customer says they were called back on ${S('07512 384961')} but nobody answered.`);
  add('phone', 'DE csv', `kunde_id;name;telefon\n1043;Jonas Becker;${S('+49 151 23847591')}\n`);
  add('phone', 'FR form', `Téléphone : ${S('06 12 83 47 95')}\nVille : Lyon`);
  add(
    'phone',
    'IN order json',
    `{"order_id":"OD3${digits(14)}","contact":"${S('+91 98450 12873')}","pincode":"560034"}`,
  );
  add('phone', 'BR whatsapp', `Me chama no WhatsApp: ${S('+55 11 98765-4321')}`);
  add('phone', 'JP', `電話番号: ${S('090-3847-2915')}`);
  add('phone', 'AU', `Mobile: ${S('0412 873 904')} (after 5pm)`);
  add(
    'iban',
    'SEPA payload',
    `{"creditor":{"name":"Becker GmbH","iban":"${S(iban('DE', `${digits(8)}${digits(10)}`))}","bic":"COBADEFFXXX"},"amount":"149.00"}`,
  );
  {
    const gb = iban('GB', `NWBK${digits(6)}${digits(8)}`);
    add('iban', 'invoice text (grouped)', `Please pay to: ${S(group4(gb))}\nReference: INV-2026-0113`);
  }
  add(
    'iban',
    'FR test fixture',
    `it('accepts a French IBAN', () => expect(isValidIban('${S(iban('FR', `${digits(10)}${upalnum(11)}${digits(2)}`))}')).toBe(true));`,
  );
  {
    const visa = card('4', 16);
    add('credit_card', 'log (grouped)', `[payments] charge failed for card ${S(group4(visa))} exp 08/28: do_not_honor`);
    const mc = card('54', 16);
    add('credit_card', 'json', `{"card_number":"${S(mc)}","cvc":"${digits(3)}","exp_month":11,"exp_year":2029}`);
    const amex = card('37', 15);
    add(
      'credit_card',
      'amex dashes',
      `Amex on file: ${S(`${amex.slice(0, 4)}-${amex.slice(4, 10)}-${amex.slice(10)}`)}`,
    );
  }
  add(
    'home_path_user',
    'mac stack trace',
    `Error: ENOENT: no such file or directory, open '/Users/${S('mkowalczyk')}/Projects/acme-web/.env.local'\n    at Object.openSync (node:fs:573:18)`,
  );
  add(
    'home_path_user',
    'windows path json-escaped',
    toolResult(
      `Traceback (most recent call last):\n  File "C:\\Users\\${S('priya.raman')}\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\runpy.py", line 198, in _run_module_as_main`,
    ),
  );
  add('home_path_user', 'linux config path', `Reading config from /home/${S('dtanaka')}/.config/acme/settings.toml`);
  add('street_address', 'US shipping', `Ship to: ${S('4821 Maple Ridge Dr, Apt 3B, Portland, OR 97214')}`);
  add('street_address', 'UK', `Registered office: ${S('27 Holloway Road, London N7 8JG')}`);
  add('street_address', 'DE', `Lieferadresse: ${S('Kastanienallee 27, 10435 Berlin')}`);
  add('us_ssn', 'fixture', `{"applicant":{"ssn":"${S('512-38-7294')}","dob":"1987-03-14"}}`);
  add('ip_address', 'ssh', `$ ssh deploy@${S('34.201.87.112')} 'sudo systemctl restart api'`);

  // ---------------------------------------------------------------- decoys
  add('decoy:commit_sha', 'git log', `commit ${hex(40)} (HEAD -> main, origin/main)\nMerge: ${hex(7)} ${hex(7)}`, true);
  add(
    'decoy:image_digest',
    'docker pull',
    `Digest: sha256:${hex(64)}\nStatus: Downloaded newer image for node:22-alpine`,
    true,
  );
  add(
    'decoy:uuid',
    'log',
    `request_id=${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)} status=200 duration_ms=41`,
    true,
  );
  add(
    'decoy:integrity',
    'package-lock',
    `"node_modules/zod": {\n  "version": "3.25.76",\n  "resolved": "https://registry.npmjs.org/zod/-/zod-3.25.76.tgz",\n  "integrity": "sha512-${bytesB64(64)}"\n}`,
    true,
  );
  add(
    'decoy:placeholder',
    '.env.example',
    `OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nANTHROPIC_API_KEY=sk-ant-...\n`,
    true,
  );
  add(
    'decoy:placeholder',
    'README',
    'export GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX  # a classic token with repo scope',
    true,
  );
  add(
    'decoy:placeholder',
    'curl docs',
    'curl -H "Authorization: Bearer <your-token>" -H "X-Api-Key: ${API_KEY}" https://api.example.com/v1/items',
    true,
  );
  add(
    'decoy:base64_text',
    'configmap',
    `data:\n  app.properties: ${Buffer.from('log.level=debug\nfeature.flags=new-ui,beta-search\ncache.ttl.seconds=300\n').toString('base64')}\n`,
    true,
  );
  add(
    'decoy:versions',
    'env info',
    '$ npx envinfo\n  OS: Windows 11 10.0.22631\n  Node: 22.11.0\n  npm: 10.9.0\n  Python: 3.12.7\n  @biomejs/biome: 2.6.8\n  typescript: 5.9.3',
    true,
  );
  add(
    'decoy:go_sum',
    'go.sum',
    `golang.org/x/net v0.31.0 h1:${bytesB64(32)}\ngolang.org/x/net v0.31.0/go.mod h1:${bytesB64(32)}`,
    true,
  );
  add(
    'decoy:git_ssh_url',
    'git clone',
    "$ git clone git@github.com:acme/platform-api.git\nCloning into 'platform-api'...",
    true,
  );
  add(
    'decoy:chunk_hash',
    'build output',
    `dist/assets/index-${b64url(8)}.js    412.81 kB │ gzip: 131.04 kB\ndist/assets/vendor.${hex(10)}.css   18.20 kB`,
    true,
  );
  add(
    'decoy:timestamps',
    'log',
    '{"ts":1764427863123,"iso":"2026-11-29T14:51:03.123Z","pid":48213,"uptime_s":86412}',
    true,
  );
  add(
    'decoy:order_number',
    'log',
    `order 1043-${digits(4)}-${digits(4)}-7 not found (tracking 1Z${upalnum(16)})`,
    true,
  );
  add(
    'decoy:arn',
    'terraform plan',
    '  + role_arn = "arn:aws:iam::481273650912:role/github-actions-deploy"\n  + account  = "481273650912"',
    true,
  );
  add(
    'decoy:sri',
    'html',
    `<script src="https://cdn.jsdelivr.net/npm/chart.js@4.4.6" integrity="sha384-${bytesB64(48)}" crossorigin="anonymous"></script>`,
    true,
  );
  add(
    'decoy:ssh_fingerprint',
    'ssh-keygen',
    `$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:${bytesB64(32).replace(/=+$/, '')} ci-bot (ED25519)`,
    true,
  );
  add(
    'decoy:masked_token',
    'gh auth status',
    "github.com\n  ✓ Logged in to github.com account ci-bot (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: gho_************************************\n  - Token scopes: 'gist', 'read:org', 'repo'",
    true,
  );
  add(
    'decoy:pod_names',
    'kubectl',
    `NAME                          READY   STATUS    RESTARTS   AGE\napi-7d9f8b6c5d-x2k9p          1/1     Running   0          3d4h\nworker-${hex(10)}-${lowalnum(5)}   1/1     Running   2          3d4h`,
    true,
  );
  add(
    'decoy:stripe_object_id',
    'stripe cli',
    `$ stripe prices list --limit 1\n{ "id": "price_1Q${alnum(22)}", "object": "price", "product": "prod_${alnum(14)}", "unit_amount": 1900 }`,
    true,
  );
}

if (set === 'b') {
  // Written after the scrubber's sources had been read (so not blind to its rules), before this set was run.
  add('cohere_key', 'env', `CO_API_KEY=${S(alnum(40))}\n`);
  add('mistral_key', 'python literal', `client = Mistral(api_key="${S(alnum(32))}")`);
  add(
    'fireworks_key',
    'curl header',
    `curl https://api.fireworks.ai/inference/v1/models -H "Authorization: Bearer ${S(`fw_${alnum(24)}`)}"`,
  );
  add(
    'deepseek_key',
    'ts literal',
    `const ds = new OpenAI({ baseURL: 'https://api.deepseek.com', apiKey: '${S(`sk-${hex(32)}`)}' });`,
  );
  add(
    'okta_token',
    'curl header',
    `curl -H "Authorization: SSWS ${S(`00${b64url(40)}`)}" https://acme.okta.com/api/v1/users?limit=25`,
  );
  add(
    'azure_devops_pat',
    'git url',
    `git clone https://build:${S(from('abcdefghijklmnopqrstuvwxyz234567')(52))}@dev.azure.com/acme/Platform/_git/api`,
  );
  add('cloudinary_url', 'env', `CLOUDINARY_URL=cloudinary://${digits(15)}:${S(b64url(27))}@acme-media`);
  add(
    'datadog_key',
    'helm values',
    `datadog:\n  apiKey: ${S(hex(32))}\n  appKey: ${S(hex(40))}\n  site: datadoghq.eu\n`,
  );
  add('sonarqube_token', 'cli', `$ sonar-scanner -Dsonar.projectKey=acme-api -Dsonar.token=${S(`squ_${hex(40)}`)}`);
  add(
    'launchdarkly_key',
    'env',
    `LAUNCHDARKLY_SDK_KEY=${S(`sdk-${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`)}\n`,
  );
  add(
    'google_oauth_secret',
    'client_secret.json',
    toolResult(
      `{"installed":{"client_id":"${digits(12)}-${lowalnum(32)}.apps.googleusercontent.com","client_secret":"${S(`GOCSPX-${b64url(28)}`)}","redirect_uris":["http://localhost"]}}`,
    ),
  );
  add(
    'github_app_key',
    'pem in yaml',
    `github:\n  appId: 4${digits(5)}\n  privateKey: |\n    ${S(pem('RSA PRIVATE KEY', 1190).replace(/\n/g, '\n    '))}\n`,
  );
  add(
    'kube_token',
    'kubeconfig',
    `users:\n- name: ci\n  user:\n    token: ${S(jwt({ iss: 'kubernetes/serviceaccount', 'kubernetes.io/serviceaccount/namespace': 'ci', sub: 'system:serviceaccount:ci:deployer' }, 'RS256'))}\n`,
  );
  add(
    'neon_url',
    'psql',
    `$ psql 'postgresql://neondb_owner:${S(`npg_${alnum(12)}`)}@ep-${from(LOWER)(6)}-${from(LOWER)(5)}-a1b2c3d4.eu-central-1.aws.neon.tech/neondb?sslmode=require'`,
  );
  add(
    'upstash_token',
    'env',
    `UPSTASH_REDIS_REST_URL=https://${from(LOWER)(8)}-${digits(5)}.upstash.io\nUPSTASH_REDIS_REST_TOKEN=${S(`A${b64url(63)}`)}\n`,
  );
  add(
    'github_token',
    'jsonl escaped twice',
    JSON.stringify({
      type: 'tool_result',
      content: JSON.stringify({ stdout: `remote: https://${S(`ghp_${alnum(36)}`)}@github.com/acme/x` }),
    }),
  );
  add('email', 'signed-off-by', `    Signed-off-by: Olúwaseun Adébáyọ̀ <${S('seun.adebayo@proton.me')}>`);
  add('phone', 'MX', `Tel. ${S('+52 55 4172 9836')}`);
  add('phone', 'ES', `Móvil: ${S('612 48 73 95')}`);
  add('phone', 'NG', `call me on ${S('0803 418 2975')}`);
  add('iban', 'NL', `IBAN: ${S(group4(iban('NL', `ABNA${digits(10)}`)))}`);
  add('credit_card', 'discover', `card_number=${S(card('6011', 16))}&cvv=${digits(3)}`);
  add('home_path_user', 'mac escaped json', toolResult(`{"cwd":"/Users/${S('sophie.lefebvre')}/code/acme","exit":1}`));
  add('decoy:hex_digest', 'sha256sum', `${hex(64)}  acme-cli-linux-amd64.tar.gz`, true);
  add(
    'decoy:placeholder',
    'docs',
    'Set STRIPE_SECRET_KEY=sk_live_... and SLACK_BOT_TOKEN=xoxb-your-token in .env',
    true,
  );
  add(
    'decoy:uuid_list',
    'terraform',
    `id = "${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}"\nsubnet_ids = ["subnet-0${hex(16)}", "subnet-0${hex(16)}"]`,
    true,
  );
  add(
    'decoy:base64_png',
    'data uri',
    `background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAA${bytesB64(90)});`,
    true,
  );
  add('decoy:git_objects', 'git', `$ git rev-parse HEAD~3\n${hex(40)}\n$ git cat-file -t ${hex(12)}\ncommit`, true);
  add(
    'decoy:semver',
    'lockfile',
    `"@anthropic-ai/sdk@^0.68.0":\n  version "0.68.0"\n  resolved "https://registry.yarnpkg.com/@anthropic-ai/sdk/-/sdk-0.68.0.tgz#${hex(40)}"`,
    true,
  );
  add(
    'decoy:prices',
    'table',
    '| plan | monthly | yearly |\n| pro  | 19.00   | 190.00 |\n| team | 1,249.00 | 12,490.00 |\nrevenue 2025-2026: 48 213 907',
    true,
  );
  add(
    'decoy:aws_example',
    'docs',
    'aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE  # the example key from the AWS docs',
    true,
  );
}

for (const s of samples) process.stdout.write(`${JSON.stringify(s)}\n`);
