export { createAxleMcpServer, type AxleMcpOptions } from './server.js';
export { PAYMENT_META, PAYMENT_RESPONSE_META } from './x402.js';
export { invalidParams, misshapenParams } from './params.js';
