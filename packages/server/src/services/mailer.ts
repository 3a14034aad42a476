import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The mail server refused the message or could not be reached, or the outbox could not be written. */
export class MailDeliveryError extends Error {}

export interface Mailer {
  /** 'outbox' writes .eml files instead of sending: the embedded default when no SMTP server is configured. */
  readonly kind: 'smtp' | 'outbox';
  send(mail: Mail): Promise<void>;
}

/**
 * SMTP when AXLE_SMTP_URL is set; otherwise each message is rendered to `<dataDir>/outbox/*.eml`.
 * Logs never name the recipient: nodemailer error messages can quote addresses, so only codes are kept.
 */
export function createMailer(opts: {
  smtpUrl?: string;
  /** Each wait on the SMTP server (connect, greeting, every reply), and the whole delivery, at most; nodemailer's own are minutes. */
  smtpTimeoutMs?: number;
  from: string;
  dataDir: string;
  logger: Logger;
  clock: Clock;
}): Mailer {
  if (opts.smtpUrl) {
    const timeout = opts.smtpTimeoutMs ?? 10_000;
    const transport = nodemailer.createTransport({
      url: opts.smtpUrl,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    return {
      kind: 'smtp',
      async send(mail) {
        // Each wait is bounded by nodemailer; the delivery as a whole is bounded here, so a server that answers
        // every step just inside the timeout cannot hold the request for many of them. A delivery given up on
        // may still complete later: its link has been withdrawn by then, and the page says to ask for another.
        const sending = transport.sendMail({ from: opts.from, ...mail });
        sending.catch(() => undefined);
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(Object.assign(new Error('delivery timed out'), { code: 'ETIMEDOUT' })),
            timeout,
          );
        });
        try {
          await Promise.race([sending, deadline]);
        } catch (err) {
          const e = err as { code?: string; responseCode?: number };
          opts.logger.error({ code: e.code, smtp_status: e.responseCode }, 'mail delivery failed');
          throw new MailDeliveryError('mail delivery failed');
        } finally {
          clearTimeout(timer);
        }
      },
    };
  }
  const outbox = path.join(opts.dataDir, 'outbox');
  const render = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send(mail) {
      const { message } = await render.sendMail({ from: opts.from, ...mail });
      // The file name is time + random, never the address.
      const file = path.join(
        outbox,
        `${new Date(opts.clock.now()).toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`,
      );
      try {
        await fs.mkdir(outbox, { recursive: true, mode: 0o700 });
        await fs.writeFile(file, message as Buffer, { mode: 0o600 });
      } catch (err) {
        // A part-written message is no message (ENOSPC).
        await fs.rm(file, { force: true }).catch(() => undefined);
        opts.logger.error({ code: (err as NodeJS.ErrnoException).code }, 'outbox write failed');
        throw new MailDeliveryError('outbox write failed');
      }
      opts.logger.info({ file }, 'mail written to outbox');
    },
  };
}
