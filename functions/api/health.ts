import { httpRoute, ok } from '../../shared/http/http-handler.js';

export const handler = httpRoute({}).handle(async () => ok({ status: 'ok' }));
