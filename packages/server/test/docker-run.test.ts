import { describe, expect, it } from 'vitest';
import { renderRunTemplates } from '../src/catalog/docker-run.js';

describe('renderRunTemplates', () => {
  it.each([
    // Docker's gateway: `volume` mounts a path at the same path, `volume-target` is the path inside.
    ['{{filesystem.paths|volume|into}}', '"${FILESYSTEM_PATHS}:${FILESYSTEM_PATHS}"'],
    ['{{filesystem.paths|volume-target|into}}', '"${FILESYSTEM_PATHS}"'],
    ['{{openapi-schema.SchemaPath|or:[]|volume|into}}', '"${OPENAPI_SCHEMA_SCHEMAPATH}:${OPENAPI_SCHEMA_SCHEMAPATH}"'],
    ['{{ast-grep.path|volume-target}}:/src', '"${AST_GREP_PATH}:/src"'],
    ['{{okta.log_path|mount_as:/logs}}', '"${OKTA_LOG_PATH}:/logs"'],
    ['{{elevenlabs.data}}:/root/Desktop', '"${ELEVENLABS_DATA}:/root/Desktop"'],
    ['{{arm-mcp.ssh_key}}:/run/keys/ssh-key.pem:ro', '"${ARM_MCP_SSH_KEY}:/run/keys/ssh-key.pem:ro"'],
    ['--access-level={{aks.access_level}}', '"--access-level=${AKS_ACCESS_LEVEL}"'],
    ['{{schemacrawler-ai.volume.host_share}}:/share', '"${SCHEMACRAWLER_AI_VOLUME_HOST_SHARE}:/share"'],
    // No template: kept, quoted only when a shell would split or expand it.
    ['mcp-sqlite:/mcp', 'mcp-sqlite:/mcp'],
    ['--db-path', '--db-path'],
    ['/data with space', '"/data with space"'],
    ['say "hi" `now`', '"say \\"hi\\" \\`now\\`"'],
  ])('%s -> %s', (expression, word) => {
    expect(renderRunTemplates([expression]).words).toEqual([word]);
  });

  it('names each setting once, in order of first use, with its key within the server settings', () => {
    const { words, variables } = renderRunTemplates([
      '{{playwright.data}}:{{playwright.data}}',
      '{{schemacrawler-ai.volume.host_share}}:/share',
      '--out={{playwright.data}}',
    ]);
    expect(words).toEqual([
      '"${PLAYWRIGHT_DATA}:${PLAYWRIGHT_DATA}"',
      '"${SCHEMACRAWLER_AI_VOLUME_HOST_SHARE}:/share"',
      '"--out=${PLAYWRIGHT_DATA}"',
    ]);
    expect(variables).toEqual([
      { variable: 'PLAYWRIGHT_DATA', setting: 'data' },
      { variable: 'SCHEMACRAWLER_AI_VOLUME_HOST_SHARE', setting: 'volume.host_share' },
    ]);
  });

  it('renders nothing for no expressions', () => {
    expect(renderRunTemplates([])).toEqual({ words: [], variables: [] });
  });
});
