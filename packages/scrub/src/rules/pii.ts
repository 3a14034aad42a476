import type { Rule } from '../engine.js';
import { cardNumberValid, ipv4Valid, ssnValid } from '../validators.js';

/** Generic accounts, not people: redacting them hides nothing and breaks paths readers need. */
const GENERIC_USERS = new Set([
  'user',
  'username',
  'runner',
  'ubuntu',
  'node',
  'app',
  'ec2-user',
  'vagrant',
  'docker',
  'root',
  'admin',
  'shared',
  'public',
  'default',
  'default user',
  'all users',
  'guest',
  'you',
  'me',
  'yourname',
  'your-name',
  'your_name',
  'name',
]);
const SSN_CONTEXT = /ssn|social security|soc\.? ?sec/i;

const NOT_LOOPBACK = (ip: string) => !/^(?:127\.|0\.0\.0\.0$|255\.255\.)/.test(ip);

/** Personal data found by pattern plus a real validator. Emails, IPv6, phones, IBANs and addresses have their own modules. */
export const PII_RULES: readonly Rule[] = [
  {
    type: 'us_ssn',
    pattern: /(?<![\w-])\d{3}([- ]?)\d{2}\1\d{4}(?![\w-])/g,
    accept: (v, m, text) =>
      ssnValid(v) && (m[1] !== '' || SSN_CONTEXT.test(text.slice(Math.max(0, m.index - 40), m.index))),
  },
  {
    type: 'credit_card',
    pattern: /(?<![\w.+-])\d(?:[ -]?\d){11,18}(?![\w-]|\.\d)/g,
    accept: (v) => {
      const seps = new Set(v.match(/[ -]/g) ?? []);
      if (seps.size > 1) return false;
      // Separated numbers are printed in blocks of 4 (or Amex 4-6-5); single stray separators mean something else.
      if (seps.size === 1 && v.split(/[ -]/).some((g) => g.length < 3)) return false;
      return cardNumberValid(v);
    },
  },
  {
    type: 'ip_address',
    pattern: /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)/g,
    accept: (v) => ipv4Valid(v) && NOT_LOOPBACK(v),
  },
  {
    type: 'username',
    // The account name inside a home directory path: /home/NAME, /Users/NAME, C:\Users\NAME (also JSON-escaped).
    // Anchored on the literal directory name (both cases of Users spelt out, so that the literals can be searched
    // for and their positions reused); the drive letter before a Windows path is checked afterwards.
    pattern: /(?:\/home\/|Users(?:\\{1,2}|\/)|users(?:\\{1,2}|\/))([^\s/\\"'<>|:*?;,`$%{}()[\]]{1,64})/dg,
    accept: (v, m, text) =>
      !GENERIC_USERS.has(v.toLowerCase()) &&
      (m[0].startsWith('/home/') ||
        /(?:^|[^A-Za-z])(?:[A-Za-z]:(?:\\{1,2}|\/)|\/)$/.test(text.slice(Math.max(0, m.index - 4), m.index))),
  },
];
