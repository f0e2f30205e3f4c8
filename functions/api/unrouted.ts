import document from '../../docs/openapi.json' with { type: 'json' };
import { routesOfDocument, unroutedHandler } from '../../shared/http/unrouted-handler.js';

// The region manager API's `$default` route: an unknown route is answered in the contract's shape.
export const handler = unroutedHandler(routesOfDocument(document));
