import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from '../config.js';
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

/**
 * The document the docs page shows: the admin operation points at this process's admin listener
 * (`admin.host`, `admin.port`; a wildcard host shown as localhost), and is left out when the admin
 * listener is off.
 */
export function docsPageDocument(document: Document, config: Config): Document {
  const copy = structuredClone(document);
  const paths = copy.paths ?? {};
  if (!config.admin.enabled) {
    delete paths['/change-log-level'];
  } else if (paths['/change-log-level']) {
    const { host: configured, port } = config.admin;
    const host =
      configured === '0.0.0.0' || configured === '::' || configured === ''
        ? 'localhost'
        : configured.includes(':')
          ? `[${configured}]`
          : configured;
    paths['/change-log-level'].servers = [
      { url: `http://${host}:${port}`, description: 'The admin listener of this process (admin.host, admin.port)' },
    ];
  }
  return copy;
}

/** The OpenAPI document as written, and an interactive page for it (Swagger UI served from npm). */
export async function registerDocsRoutes(app: FastifyInstance, config: Config): Promise<void> {
  const { text, document } = loadOpenApi();
  app.get('/api/v1/docs/openapi.yml', async (_request, reply) => reply.type('text/yaml; charset=utf-8').send(text));
  await app.register(swagger, { mode: 'static', specification: { document: docsPageDocument(document, config) as never } });
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs', staticCSP: DOCS_CSP, theme: { title: DOCS_TITLE } });
}
