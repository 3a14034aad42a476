export { z } from './zod.js';
export * from './limits.js';
export * from './schemas/common.js';
export * from './schemas/skill.js';
export * from './schemas/public.js';
