import { ERROR_CODES, ExtractGone } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';
import type { Api } from '../http/route.js';

const MESSAGE =
  "Extraction now runs on the contributor's machine: run `axle extract <transcript>` or enable the session hooks with `axle setup`. " +
  'Transcripts are scrubbed locally and never sent; only finished drafts are submitted to POST /learn.';

/** POST /extract: disabled per the agent card; always 410, whatever the body or credentials. */
export function extractRoutes(api: Api): void {
  api.route({
    method: 'post',
    path: '/extract',
    operationId: 'extract',
    summary: 'Disabled: extraction runs client-side',
    description:
      'Kept so old clients get a clear answer. The request shape (ExtractRequest: source, transcript, transcript_sha256, ' +
      'client_scrub_report) is not read; the endpoint answers 410 extraction_client_side.',
    tags: ['Extraction'],
    responses: { 410: { description: "Extraction runs on the contributor's machine", schema: ExtractGone } },
    handler: () => {
      // Thrown, not returned, so the error middleware adds request_id like on every other error.
      throw new DomainError(ERROR_CODES.EXTRACTION_CLIENT_SIDE, 'Server-side extraction is disabled', {
        message: MESSAGE,
      });
    },
  });
}
