import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { loadOpenApi } from '../http/openapi.js';

/** The OpenAPI document as written, and an interactive page for it (Swagger UI served from npm). */
export async function registerDocsRoutes(app: FastifyInstance): Promise<void> {
  const { text, document } = loadOpenApi();
  app.get('/api/v1/docs/openapi.yml', async (_request, reply) => reply.type('text/yaml; charset=utf-8').send(text));
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs' });
}
