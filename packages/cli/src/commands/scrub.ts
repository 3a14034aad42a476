import { readFile } from 'node:fs/promises';
import { scrubAsync } from '@axle/scrub';
import { Args, Command, Flags } from '@oclif/core';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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
    const input = args.file === '-' ? await readStdin() : await readFile(args.file, 'utf8');
    const { text, report } = await scrubAsync(input, { tier: flags.thorough ? 'thorough' : 'fast' });
    // Written raw rather than through this.log so the output is byte-for-byte what the scrubber produced.
    process.stdout.write(flags.json ? `${JSON.stringify({ text, report })}\n` : text);
  }
}
