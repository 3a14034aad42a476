// Preloaded into a server process (`node --import ./bench/lib/count-statements.js`) by bench/pg-cost.js: counts the
// messages (queries: one or more statements) it sends to PostgreSQL, by text, and writes the counts to AXLE_STATEMENT_COUNTS every 200 ms.
import fs from 'node:fs';
import pg from 'pg';

const file = process.env.AXLE_STATEMENT_COUNTS;
if (file) {
  const counts = new Map();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') counts.set(text, (counts.get(text) ?? 0) + 1);
    return query.call(this, config, ...rest);
  };
  // The launcher loads this too but sends nothing: only a process with counts writes them.
  setInterval(() => counts.size > 0 && fs.writeFileSync(file, JSON.stringify(Object.fromEntries(counts))), 200).unref();
}
