// The parts of a `docker run` line that Docker's MCP catalog writes as templates over a server's settings
// (`run.volumes`, `run.command`: "{{filesystem.paths|volume|into}}"), rendered for a person to run. Docker's
// gateway fills them from the user's settings (github.com/docker/mcp-gateway, pkg/eval): `volume` makes a path
// `path:path`, `volume-target` the path itself, `mount_as:T` `path:T`; `into`, `first`, `last` and `or:` pick
// among a list's values. Here each setting becomes a shell variable named for the server and the setting
// (`$FILESYSTEM_PATHS`), which the install note names with the setting's description and default. Pure.

/** A setting a rendered line reads: the shell variable, and the setting's key within the server's settings. */
export interface RunVariable {
  variable: string;
  setting: string;
}

const TEMPLATE = /\{\{([^{}]*)\}\}/g;

/** `aks.kubeconfig` -> `AKS_KUBECONFIG`. */
const variableOf = (path: string): string =>
  path
    .trim()
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();

/** One `{{path|fn|fn}}` term as shell text. */
function renderTerm(term: string, used: Map<string, RunVariable>): string {
  const [path = '', ...functions] = term.split('|');
  const variable = variableOf(path);
  const setting = path.trim().split('.').slice(1).join('.');
  if (!used.has(variable)) used.set(variable, { variable, setting });
  let text = `\${${variable}}`;
  for (const f of functions.map((s) => s.trim())) {
    if (f === 'volume') text = `${text}:${text}`;
    else if (f.startsWith('mount_as:')) text = `${text}:${f.slice('mount_as:'.length).trim()}`;
  }
  return text;
}

/** A word as a POSIX shell reads it: quoted (double quotes, so variables expand) unless it is plain. */
const shellWord = (word: string): string =>
  /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `"${word.replace(/(["\\`])/g, '\\$1')}"`;

/**
 * `expressions` (a server's `run.volumes` or `run.command`) as shell words, and the settings they read, in order
 * of first use. An expression without templates is kept as it is (`mcp-sqlite:/mcp`, `--db-path`).
 */
export function renderRunTemplates(expressions: readonly string[]): { words: string[]; variables: RunVariable[] } {
  const used = new Map<string, RunVariable>();
  const words = expressions.map((e) => shellWord(e.replace(TEMPLATE, (_, term: string) => renderTerm(term, used))));
  return { words, variables: [...used.values()] };
}
