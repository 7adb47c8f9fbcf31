import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { loadOpenApi } from '../http/openapi.js';

/**
 * The Content-Security-Policy of the docs page and its assets: only this origin's scripts, styles,
 * images and fonts (Swagger UI's bundle has no inline script), no plugins, no framing by other sites.
 */
export const DOCS_CSP = {
  'default-src': "'self'",
  'base-uri': "'self'",
  'script-src': "'self'",
  'script-src-attr': "'none'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'font-src': "'self' data:",
  'connect-src': "'self'",
  'object-src': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
};

/** The OpenAPI document as written, and an interactive page for it (Swagger UI served from npm). */
export async function registerDocsRoutes(app: FastifyInstance): Promise<void> {
  const { text, document } = loadOpenApi();
  app.get('/api/v1/docs/openapi.yml', async (_request, reply) => reply.type('text/yaml; charset=utf-8').send(text));
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs', staticCSP: DOCS_CSP });
}
