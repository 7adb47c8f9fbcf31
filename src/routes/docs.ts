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

export const DOCS_TITLE = 'Ledger Query Service API';

type Document = Record<string, unknown> & { paths?: Record<string, Record<string, unknown>> };

/** Operations of the description that the page cannot call: the admin listener's, on another origin (which the CSP's `connect-src 'self'` forbids) behind Basic auth. */
const NOT_FROM_THE_PAGE = ['/change-log-level'];

/**
 * The document the docs page shows: the public API's operations, every one of which "Try it out"
 * can call from the page. The admin operation stays described in `/api/v1/docs/openapi.yml`.
 */
export function docsPageDocument(document: Document): Document {
  const copy = structuredClone(document);
  for (const path of NOT_FROM_THE_PAGE) delete copy.paths?.[path];
  return copy;
}

/** The OpenAPI document as written, and an interactive page for it (Swagger UI served from npm). */
export async function registerDocsRoutes(app: FastifyInstance): Promise<void> {
  const { text, document } = loadOpenApi();
  app.get('/api/v1/docs/openapi.yml', async (_request, reply) => reply.type('text/yaml; charset=utf-8').send(text));
  await app.register(swagger, { mode: 'static', specification: { document: docsPageDocument(document) as never } });
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs', staticCSP: DOCS_CSP, theme: { title: DOCS_TITLE } });
}
