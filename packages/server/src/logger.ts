import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs. Keys, tokens, signatures and learning bodies are never passed to the logger;
 * the redact list is a second line of defence for headers that slip into a log object.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'axle-server' },
      redact: {
        paths: [
          'headers.authorization',
          'headers["x-api-key"]',
          'headers["x-payment"]',
          'headers.cookie',
          '*.api_key',
          '*.token',
          '*.password',
          '*.email',
        ],
        censor: '[redacted]',
      },
    },
    destination as never,
  );
}
