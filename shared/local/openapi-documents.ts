import { openApiDocument } from '../contract/openapi.js';
import { gateRoutes } from './local-gate.js';
import { managerRoutes } from './manager-routes.js';

const version = '2';

/** The documents each listener kind serves, generated from its route table. */
export function openApiDocuments() {
  return {
    'docs/openapi.json': openApiDocument(
      {
        title: 'Vigil region manager API',
        description: 'Jobs, workflows and worker extensions in one region (local authority). See README.md, "API".',
        version,
      },
      managerRoutes,
    ),
    'docs/openapi-gate.json': openApiDocument(
      { title: 'Vigil gate API', description: 'Gate-coordinated jobs across regions. See README.md, "API".', version },
      gateRoutes,
    ),
  };
}

export const serialized = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;
