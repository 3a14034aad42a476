// The operator commands' usage lines: each command answers its own on bad arguments, and main.ts joins them for a
// command it does not know, without loading any command's modules.
export const CATALOG_SYNC_USAGE = 'usage: axle-server catalog sync --from <registry URL>';
export const CATALOG_HELD_USAGE = 'usage: axle-server catalog held | axle-server catalog release <server name>';
