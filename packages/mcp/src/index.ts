export { createMcpServer } from './server.js';
export { readConfig, type McpConfig } from './config.js';
export { TOOL_CALLS, type HttpCall } from './calls.js';
