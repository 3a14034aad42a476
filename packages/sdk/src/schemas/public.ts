import { z } from '../zod.js';

export const SearchState = z
  .object({
    lexical: z.enum(['ready', 'unavailable']),
    semantic: z.enum(['warming', 'ready', 'unavailable', 'disabled']),
  })
  .openapi('SearchState');

export const HealthResponse = z
  .object({
    status: z.literal('ok'),
    uptime: z.number().describe('seconds since the process started'),
    catalog_size: z.number().int().describe('visible learnings'),
    skills_catalog_size: z.number().int(),
    search: SearchState.optional(),
    timestamp: z.string(),
  })
  .openapi('Health');
