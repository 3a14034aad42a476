import path from 'node:path';
import { z } from '@axle/sdk';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Environment -> typed config. The only module that reads process.env. */
const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8402),
  HOST: z.string().default('0.0.0.0'),
  AXLE_DATA_DIR: z.string().default('./data'),
  AXLE_BASE_URL: z.string().url().optional(),
  AXLE_CATALOG: z.string().optional(),
  AXLE_SEMANTIC_SEARCH: z.enum(['on', 'off']).default('on'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AXLE_ADMIN_TOKEN: z.string().min(1).optional(),
  AXLE_ADMIN_READ_TOKEN: z.string().min(1).optional(),
  AXLE_FORCED_REVIEW: bool,
  AXLE_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  AXLE_SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  AXLE_MAIL_FROM: z.string().min(3).optional(),
  AXLE_TRUST_PROXY: bool,
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL; when unset it is derived from the bound port at listen time. */
  baseUrl?: string;
  catalogPath?: string;
  semanticSearch: boolean;
  logLevel: string;
  adminToken?: string;
  adminReadToken?: string;
  forcedReview: boolean;
  /** Session-token signing key; when unset one is generated into the data dir. */
  jwtSecret?: string;
  /** Magic links go here; when unset they are written to <dataDir>/outbox/. */
  smtpUrl?: string;
  mailFrom?: string;
  /** Take the client IP from X-Forwarded-For (only behind a proxy that sets it). */
  trustProxy: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.AXLE_DATA_DIR),
    baseUrl: e.AXLE_BASE_URL?.replace(/\/+$/, ''),
    catalogPath: e.AXLE_CATALOG,
    semanticSearch: e.AXLE_SEMANTIC_SEARCH === 'on',
    logLevel: e.LOG_LEVEL,
    adminToken: e.AXLE_ADMIN_TOKEN,
    adminReadToken: e.AXLE_ADMIN_READ_TOKEN,
    forcedReview: e.AXLE_FORCED_REVIEW,
    jwtSecret: e.AXLE_JWT_SECRET,
    smtpUrl: e.AXLE_SMTP_URL,
    mailFrom: e.AXLE_MAIL_FROM,
    trustProxy: e.AXLE_TRUST_PROXY,
  };
}
