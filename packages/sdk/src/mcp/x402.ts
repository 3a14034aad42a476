import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import type { AxleApiError } from '../client.js';
import { mcpToolJsonSchema } from '../schemas/mcp-tools.js';

// The x402 MCP transport (coinbase/x402 specs/transports-v2/mcp.md): PaymentRequired travels as an isError tool
// result, the PaymentPayload in the request's _meta["x402/payment"], the settlement in the result's
// _meta["x402/payment-response"]. Over HTTP the Axle API speaks the same payloads in base64 JSON headers.

export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';

const toBase64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
function fromBase64(v: string | undefined): Record<string, unknown> | undefined {
  if (!v) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(v, 'base64').toString('utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The PAYMENT-SIGNATURE header value for a PaymentPayload found in a request's _meta, if any. */
export function paymentHeader(meta: Record<string, unknown> | undefined): string | undefined {
  const payment = meta?.[PAYMENT_META];
  return payment && typeof payment === 'object' ? toBase64(payment) : undefined;
}

/** The settlement (SettlementResponse) the API answered a paid unlock with. */
export function settlementOf(headers: Record<string, string>): Record<string, unknown> | undefined {
  return fromBase64(headers['payment-response'] ?? headers['x-payment-response']);
}

/** The Bazaar discovery declaration of svc_unlock as an MCP tool served over Streamable HTTP. */
function unlockDiscovery(): Record<string, { info: unknown; schema: unknown }> {
  return declareDiscoveryExtension({
    toolName: 'svc_unlock',
    description: 'Unlock the full body of a learning from the Axle knowledge marketplace',
    transport: 'streamable-http',
    inputSchema: mcpToolJsonSchema('svc_unlock'),
    example: { learning_id: 'lrn_8fK2pQ7xVb3n' },
    output: { example: { id: 'lrn_8fK2pQ7xVb3n', title: '…', body: '…', content_advisory: '…' } },
  }) as Record<string, { info: unknown; schema: unknown }>;
}

/** The _meta key under which tools/list carries a paid tool's Bazaar declaration. */
export const BAZAAR_META = 'x402/bazaar';

/** svc_unlock's entry in tools/list: its Bazaar declaration, so a catalog lists the tool without calling it. */
export const unlockToolMeta = (): Record<string, unknown> => ({ [BAZAAR_META]: unlockDiscovery().bazaar });

/**
 * The tool result's PaymentRequired for a 402 from GET /knowledge/{id}: the API's x402 v2 requirements (its
 * PAYMENT-REQUIRED header) with the MCP endpoint as the resource, the API's extensions that apply to a tool call
 * (payment-identifier; sign-in-with-x is an HTTP header and has no MCP carrier) and the tool's Bazaar
 * declaration, plus the answer's credit options and message, so an agent without a wallet learns how to get a key.
 */
export function paymentRequired(err: AxleApiError, mcpUrl: string): Record<string, unknown> {
  const v2 = fromBase64(err.headers['payment-required']);
  const { x402Version, accepts, error, message, options, credits, code } = err.body as Record<string, unknown>;
  const resource = (v2?.resource ?? {}) as Record<string, unknown>;
  const { 'sign-in-with-x': _httpOnly, ...extensions } = (v2?.extensions ?? {}) as Record<string, unknown>;
  return {
    x402Version: v2?.x402Version ?? x402Version,
    error: v2?.error ?? error,
    resource: { url: mcpUrl, description: resource.description ?? 'Unlock a learning', mimeType: 'application/json' },
    accepts: v2?.accepts ?? accepts,
    extensions: { ...extensions, ...unlockDiscovery() },
    ...(code !== undefined && { code }),
    ...(message !== undefined && { message }),
    ...(options !== undefined && { options }),
    ...(credits !== undefined && { credits }),
  };
}

/** content[0].text of a payment-required tool result: the transport's `x402/error` wrapper. */
export const paymentRequiredText = (required: Record<string, unknown>) =>
  JSON.stringify({
    'x402/error': { code: 402, message: String(required.error ?? 'Payment required'), data: required },
  });
