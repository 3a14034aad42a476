import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { scrubAsync } from '@axle/scrub';
import { Args, Command, Flags } from '@oclif/core';
import { EXIT } from '../lib/exit.js';

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export default class Scrub extends Command {
  static override description = 'Remove credentials and personal data from a file or stdin, locally';

  static override examples = [
    '<%= config.bin %> scrub session.jsonl',
    'cat notes.md | <%= config.bin %> scrub --json -',
  ];

  static override args = {
    file: Args.string({ description: 'file to scrub, or - for stdin', required: true }),
  };

  static override flags = {
    json: Flags.boolean({ description: 'print {text, report} as one line of JSON' }),
    thorough: Flags.boolean({
      description: 'also replace person names and street addresses ([PERSON_1], [ADDRESS_1]); for short texts',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Scrub);
    let bytes: Buffer;
    try {
      bytes = args.file === '-' ? await readStdin() : await readFile(args.file);
    } catch (err) {
      return this.error(`Cannot read ${args.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
        exit: EXIT.FAILED,
      });
    }
    // The output is the input but for what was removed; bytes that are not UTF-8 cannot come out as they went in.
    if (!isUtf8(bytes))
      this.logToStderr('The input is not UTF-8 text: the bytes that are not were replaced with U+FFFD (\uFFFD).');
    const { text, report } = await scrubAsync(bytes.toString('utf8'), { tier: flags.thorough ? 'thorough' : 'fast' });
    // Written raw rather than through this.log so the output is byte-for-byte what the scrubber produced.
    process.stdout.write(flags.json ? `${JSON.stringify({ text, report })}\n` : text);
  }
}
