import { isIPv6 } from 'node:net';
import type { Rule } from '../engine.js';
import { cardNumberValid, ipv4Valid, ssnValid } from '../validators.js';

/** Generic accounts, not people: redacting them hides nothing and breaks paths readers need. */
const GENERIC_USERS = new Set([
  'user', 'username', 'runner', 'ubuntu', 'node', 'app', 'ec2-user', 'vagrant', 'docker', 'root', 'admin', 'shared',
  'public', 'default', 'default user', 'all users', 'guest', 'you', 'me', 'yourname', 'your-name', 'your_name', 'name',
]);
const SSN_CONTEXT = /ssn|social security|soc\.? ?sec/i;

const NOT_LOOPBACK = (ip: string) => !/^(?:127\.|0\.0\.0\.0$|255\.255\.)/.test(ip);

/** Personal data found by pattern plus a real validator. Phone numbers and IBANs have their own modules. */
export const PII_RULES: readonly Rule[] = [
  {
    type: 'email',
    pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
    // Not git@host remotes, and not the password@host part of a URL's user:password.
    accept: (v, m, text) => !/^git@/i.test(v) && !/:\/\/[^\s/@]*:$/.test(text.slice(Math.max(0, m.index - 200), m.index)),
  },
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
    type: 'ip_address',
    pattern: /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|\d{1,3}(?:\.\d{1,3}){3})?(?![\w:])/g,
    accept: (v) => isIPv6(v) && /\d/.test(v) && v.split(':').filter(Boolean).length >= 3 && v !== '::1',
  },
  {
    type: 'username',
    // The account name inside a home directory path: /home/NAME, /Users/NAME, C:\Users\NAME (also JSON-escaped).
    pattern: /(?:\/home\/|\/Users\/|(?<![A-Za-z])[A-Za-z]:(?:\\{1,2}|\/)[Uu]sers(?:\\{1,2}|\/))([^\s/\\"'<>|:*?;,`$%{}()[\]]{1,64})/dg,
    accept: (v) => !GENERIC_USERS.has(v.toLowerCase()),
  },
  {
    type: 'street_address',
    // Number, one to four capitalised words, a street suffix: 1668 Glyn St, 14 Crown Street, 221B Baker Street.
    pattern:
      /(?<![\w.])\d{1,6}[A-Za-z]?\s(?:[A-Z][\p{L}'.-]{0,24}\s){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq|Trail|Crescent|Close|Row|Walk|Gardens|Hill|Park|Loop|Ridge|Path|Pike|Plaza|Alley|Mews|Green|Grove|Station|Port|Fort|Crossing|Junction|Mill|Point|Springs?|Streets|Squares)(?![\p{L}\d])\.?(?:,?\s(?:Apt\.|Suite|Unit)\s\d{1,5})?/dgu,
  },
  {
    type: 'street_address',
    // European forms: Puruntie 82, Koskikatu 25, Brucker Bundesstrasse 31, Præstevænget 15, Rua do Arenque 1634.
    pattern:
      /(?<![\p{L}\d])(?:(?:Rue|Via|Viale|Calle|Avenida|Rua|Piazza|Praça|Plaza|Carrer|Ulica|Strada)(?:\s[\p{L}'’.-]{1,30}){1,4}|\p{Lu}[\p{L}-]{1,30}(?:straße|strasse|weg|gasse|platz|allee|katu|tie|kuja|polku|vej|vænget|gade|gatan|vägen|väg|laan|straat|gracht|plein|utca|ulica))\s\d{1,5}[a-zA-Z]?(?![\p{L}\d])/gu,
  },
  {
    type: 'street_address',
    pattern: /(?<![\p{L}\d])(?:Apt\.?|Apartment|Suite|Ste\.|Unit)\s#?\d{1,5}(?!\d)|(?<![\p{L}\d])PSC \d{4}, Box \d{4}/gu,
  },
];
