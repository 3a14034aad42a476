/**
 * A one-line progress indicator on stderr, shown only on a terminal and never under --json, so
 * scripts and pipes get clean output.
 */
export class Progress {
  private readonly on: boolean;
  private last = '';

  constructor(quiet: boolean) {
    this.on = !quiet && Boolean(process.stderr.isTTY);
  }

  /** Whether updates show (a terminal, not --json); otherwise callers print the lines that matter. */
  get live(): boolean {
    return this.on;
  }

  update(text: string): void {
    if (!this.on || text === this.last) return;
    this.last = text;
    process.stderr.write(`\r\x1b[2K${text}`);
  }

  done(text?: string): void {
    if (!this.on) return;
    process.stderr.write(`\r\x1b[2K${text ? `${text}\n` : ''}`);
    this.last = '';
  }
}
