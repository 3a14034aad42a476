export { loadConfig, type Config } from './config.js';
export { startServer, type RunningServer, type StartOptions } from './server.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
