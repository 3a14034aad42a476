import { describe, expect, it } from 'vitest';
import { nameOperation, requestOperation } from '../src/domain/operation-verbs.js';

describe('requestOperation', () => {
  it.each([
    ['delete the Contractors group from Okta', 'delete'],
    ['get rid of the session timeout rule we no longer need', 'delete'],
    ['discard the draft login page', 'delete'],
    ['add book venue as a new item to my checklist', 'create'],
    ['set up login.acme.com as our own domain', 'create'],
    ['make a new folder called Contracts', 'create'],
    ['rename my project from Q3 launch to Q4 launch', 'update'],
    ['change the limit price on my open order', 'update'],
    ['show the configuration of the nightly flow', 'read'],
    ['which Webflow sites do I have?', 'read'],
    ['list the roles defined in the staging namespace', 'read'],
    ['turn on the MFA rule in our sign-on policy', 'activate'],
    ['disable automatic analysis', 'deactivate'],
    ['email the Q3 report summary to my manager', 'send'],
    ['kick off a CI run of the main branch', 'create'],
    ['put this PDF into the Invoices folder', 'create'],
    ['overwrite the German activation email with the new text', 'update'],
    ['tweak the MFA rule so it only applies off the office network', 'update'],
    ['set our logo as the browser tab icon', 'update'],
    ['how many errors did checkout throw today?', 'read'],
    ['who are the members of the Finance group?', 'read'],
    ['uninstall the prometheus release', 'delete'],
    // A phrase is matched before its first word alone: `set up` creates, `set` updates.
    ['set up a webhook for new orders', 'create'],
    // Words that are more often a noun or an adjective in a request (new, build, post) name no operation.
    ['new issues in my GitHub repo this week', undefined],
    ['logs of the latest build', undefined],
    // The first operation the request names decides; a request that names none has none.
    ['find the old page and delete it', 'read'],
    ['weather in Lisbon tomorrow', undefined],
    ['', undefined],
  ])('%j -> %j', (text, op) => {
    expect(requestOperation(text)).toBe(op);
  });
});

describe('nameOperation', () => {
  it.each([
    ['zpa_delete_timeout_policy_rule', 'delete'],
    ['get_zpa_trusted_network', 'read'],
    ['createProject', 'create'],
    ['list-gds-procedures', 'read'],
    ['upsert_custom_domain_certificate', 'update'],
    ['activate_policy_rule', 'activate'],
    ['sendMessage', 'send'],
    ['install_helm_chart', 'create'],
    ['upgrade_helm_chart', 'update'],
    ['query_database', 'read'],
    // A name that is not an operation (a product, a noun) has none.
    ['GitHub', undefined],
    ['Open Weather Map', undefined],
    ['zdx_start_analysis', undefined],
    // A display name (capitals, spaces, a dot) is a product's, not a tool's: `New York Times` does not create.
    ['New York Times', undefined],
    ['Brave NewCoin', undefined],
    ['Image Upload', undefined],
    ['Remove.bg', undefined],
    ['GetOTP', undefined],
    ['Find-A-Domain', undefined],
    ['zcaceres/fetch-mcp', undefined],
  ])('%j -> %j', (name, op) => {
    expect(nameOperation(name)).toBe(op);
  });
});
