// Reads the public-apis README: one "### Section" heading per category, each followed by a table
// `| [Name](link) | Description | Auth | HTTPS | CORS |`. Pure: takes the markdown text.

export interface PublicApiRow {
  section: string;
  name: string;
  link: string;
  description: string;
  /** `apiKey`, `OAuth`, `X-Mashape-Key`, `User-Agent` or `none`. */
  auth: string;
  https: boolean;
  cors: 'yes' | 'no' | 'unknown';
  /** 1-based line in the README, for error messages. */
  line: number;
}

const LINK_CELL = /^\[(.+?)\]\(\s*([^)\s]+)\s*\)$/;

/** Markdown links in prose -> their text; backticks dropped. */
function plain(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function yesNo(cell: string, line: number, column: string): boolean {
  const v = cell.toLowerCase();
  if (v === 'yes') return true;
  if (v === 'no') return false;
  throw new Error(`public-apis line ${line}: ${column} "${cell}" is neither Yes nor No`);
}

function auth(cell: string): string {
  const v = plain(cell);
  return v === '' || v.toLowerCase() === 'no' ? 'none' : v;
}

function cors(cell: string, line: number): PublicApiRow['cors'] {
  const v = cell.toLowerCase();
  if (v === 'yes' || v === 'no' || v === 'unknown') return v;
  throw new Error(`public-apis line ${line}: CORS "${cell}" is not Yes, No or Unknown`);
}

/**
 * Rows of the per-category sections only. The sponsor tables before the index have no auth, HTTPS
 * or CORS columns and repeat APIs listed in the categories, so they are left out.
 */
export function parsePublicApis(markdown: string): PublicApiRow[] {
  const rows: PublicApiRow[] = [];
  let section: string | undefined;
  let inCategories = false;
  for (const [i, raw] of markdown.split('\n').entries()) {
    const line = i + 1;
    const text = raw.trim();
    if (text === '## Index') inCategories = true;
    if (/^#{1,2} /.test(text)) {
      section = undefined;
      continue;
    }
    const heading = /^### (.+)$/.exec(text);
    if (heading) {
      section = inCategories ? heading[1]!.trim() : undefined;
      continue;
    }
    if (section === undefined || !text.startsWith('|')) continue;
    const cells = text
      .replace(/^\|/, '')
      .split('|')
      .map((c) => c.trim());
    const link = LINK_CELL.exec(cells[0] ?? '');
    if (!link) continue; // header and separator rows
    if (cells.length < 5) throw new Error(`public-apis line ${line}: expected 5 columns, got ${cells.length}`);
    rows.push({
      section,
      name: plain(link[1]!),
      link: link[2]!,
      description: plain(cells[1]!),
      auth: auth(cells[2]!),
      https: yesNo(cells[3]!, line, 'HTTPS'),
      cors: cors(cells[4]!, line),
      line,
    });
  }
  return rows;
}
