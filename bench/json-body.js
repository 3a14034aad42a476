// What refusing duplicate JSON keys costs a request body: JSON.parse alone against JSON.parse plus the
// duplicate-key scan of http/body.ts, on bodies the size of a small money request, a learning and the 1 MiB limit,
// interleaved in one run so machine load hits both alike. `node bench/json-body.js` (after `npx tsc -b packages/server`).
import { duplicateJsonKey, jsonDepth } from '../packages/server/dist/http/body.js';

const learning = (i) => ({
  title: `Retry S3 multipart uploads on SlowDown ${i}`,
  body: 'Back off with jitter and resume from the last part; \\"quoted\\" and escaped text. '.repeat(40),
  category: 'storage-state',
  tags: ['s3', 'retry', `t${i}`],
  task_context: 'uploading large files',
  outcome: 'success',
});
const sized = (bytes) => {
  const items = [];
  while (JSON.stringify({ items }).length < bytes) items.push(learning(items.length));
  return JSON.stringify({ items });
};
const bodies = {
  'money request (40 B)': '{"amount_usd":1.25,"wallet":"0xdEaD"}',
  'one learning (4 KB)': JSON.stringify(learning(0)),
  'body limit (1 MiB)': sized(1_000_000),
};

const time = (fn, n) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t) / n / 1000;
};
console.log('body | bytes | parse µs | parse + depth + duplicates µs | ratio');
for (const [name, text] of Object.entries(bodies)) {
  const n = Math.max(20, Math.floor(20_000_000 / text.length));
  const plain = () => JSON.parse(text);
  const guarded = () => {
    jsonDepth(text);
    JSON.parse(text);
    duplicateJsonKey(text);
  };
  let a = 0;
  let b = 0;
  for (let round = 0; round < 5; round++) {
    a += time(plain, n);
    b += time(guarded, n);
  }
  console.log(`${name} | ${text.length} | ${(a / 5).toFixed(2)} | ${(b / 5).toFixed(2)} | ${(b / a).toFixed(2)}`);
}
