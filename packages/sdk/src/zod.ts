// One zod instance for the whole contract, extended with `.openapi()` so that every schema
// that validates a request also documents it in /openapi.json.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
