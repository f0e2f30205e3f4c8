// npm run openapi: regenerates the checked-in OpenAPI documents from the route tables.
import { writeFileSync } from 'node:fs';
import { openApiDocuments, serialized } from './openapi-documents.js';

for (const [file, document] of Object.entries(openApiDocuments())) {
  writeFileSync(new URL(`../../${file}`, import.meta.url), serialized(document));
  console.log(`wrote ${file}`);
}
