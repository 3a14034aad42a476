import { describe, expect, it } from 'vitest';
import { registryUrlProblem } from '../src/catalog/registry-url.js';

describe('registryUrlProblem', () => {
  it.each([
    'https://registry.modelcontextprotocol.io',
    'https://registry.modelcontextprotocol.io/',
    'http://127.0.0.1:8080/mirror/',
    'HTTPS://REGISTRY.EXAMPLE',
    'https://[::1]:8443',
  ])('takes %j', (url) => expect(registryUrlProblem(url)).toBeUndefined());

  it.each([
    ['registry.example', 'must be a URL'],
    ['', 'must be a URL'],
    ['/v0.1/servers', 'must be a URL'],
    ['file:///etc/passwd', 'must be an http(s) URL'],
    ['ftp://registry.example', 'must be an http(s) URL'],
    ['javascript:alert(1)', 'must be an http(s) URL'],
    ['https://user:secret@registry.example', 'must not hold a user name or password'],
    ['https://user@registry.example', 'must not hold a user name or password'],
    ['https://:secret@registry.example', 'must not hold a user name or password'],
  ])('refuses %j: %s', (url, problem) => expect(registryUrlProblem(url)).toBe(problem));
});
