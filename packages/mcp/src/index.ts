export { readConfig, type McpConfig } from './config.js';
