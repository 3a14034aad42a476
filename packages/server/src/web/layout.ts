import { createHash } from 'node:crypto';

const STYLE = [
  ':root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6470;--bg:#f6f7f9;--card:#fff;--line:#d9dde3;--accent:#1f6feb;--danger:#b42318}',
  '@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#9aa4b1;--bg:#0f1216;--card:#171b21;--line:#2a313a;--accent:#4c8dff;--danger:#ff6b5f}}',
  '*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}',
  'main{max-width:30rem;margin:8vh auto;padding:0 1rem}',
  '.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:2rem;box-shadow:0 1px 3px rgba(0,0,0,.06)}',
  '.brand{font-weight:700;letter-spacing:.02em;color:var(--muted);margin:0 0 1.5rem}',
  'h1{font-size:1.4rem;margin:0 0 .75rem}h2{font-size:1.05rem;margin:1.25rem 0 .25rem}p{margin:.5rem 0}.muted{color:var(--muted);font-size:.9rem}',
  '.code{font:600 2rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.15em;text-align:center;padding:1rem;margin:1rem 0;border:2px dashed var(--line);border-radius:8px}',
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}dt{color:var(--muted)}dd{margin:0;font-weight:600;overflow-wrap:anywhere}',
  'label{display:block;font-weight:600;margin:1rem 0 .25rem}input[type=email],input[type=text]{width:100%;padding:.6rem .75rem;font:inherit;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}',
  '.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{flex:1;padding:.7rem 1rem;font:inherit;font-weight:600;border-radius:6px;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer}',
  'button.primary{background:var(--accent);border-color:var(--accent);color:#fff}button.danger{color:var(--danger)}',
  '.notice{padding:.75rem 1rem;border-radius:6px;border:1px solid var(--line);background:var(--bg)}.notice.error{border-color:var(--danger);color:var(--danger)}',
  'footer{margin-top:1rem;text-align:center}',
  '.sign-out{display:flex;align-items:center;gap:.5rem;margin:.25rem 0 1rem}.sign-out button{flex:none;padding:.2rem .6rem;font-size:.85rem;font-weight:400}',
].join('');
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Headers for every HTML page people see. No script may run at all; the only style is the inline
 * one allowed by hash; forms may only post back here; no site may frame the page (clickjacking).
 * Referrer-Policy same-origin (not no-referrer) keeps the Origin header on our own form posts,
 * which the CSRF check relies on.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and quoted attribute values. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** A whole page; `body` is trusted markup built with esc() around every dynamic value. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)} · Axle</title><style>${STYLE}</style></head><body><main><div class="card"><p class="brand">Axle</p>${body}</div></main></body></html>`;
}
