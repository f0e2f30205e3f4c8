import document from '../../docs/openapi-gate.json' with { type: 'json' };
import { httpRoute, ok } from '../../shared/http/http-handler.js';

// The checked-in document (npm run openapi), which a test keeps equal to the route table's.
export const handler = httpRoute({}).handle(async () => ok(document));
