// Writes oclif.manifest.json: every command's id, summary, flags and args, read from the built commands.
// With it, `axle --help` and command lookup read one JSON file instead of importing all commands (and
// their dependencies: the server, the extractor, the scrubber). Run by `npm run build` after tsc.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const config = await Config.load({ root, ignoreManifest: true });
const plugin = config.getPluginsList().find((p) => p.isRoot);
fs.writeFileSync(new URL('../oclif.manifest.json', import.meta.url), `${JSON.stringify(plugin.manifest, null, 2)}\n`);
