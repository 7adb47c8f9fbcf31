import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { OPENAPI_PATH } from '../paths.js';

/** The service's own OpenAPI document: served as written, and the source of the response schemas. */
export interface OpenApiDocument {
  text: string;
  document: { components: { schemas: Record<string, unknown> } } & Record<string, unknown>;
}

let cached: OpenApiDocument | null = null;

export function loadOpenApi(): OpenApiDocument {
  if (!cached) {
    const text = readFileSync(OPENAPI_PATH, 'utf8');
    cached = { text, document: parseYaml(text) };
  }
  return cached;
}

export const SCHEMA_ID = 'lqs';

/** Shared schema holding the document's components, so `#/components/schemas/X` refs resolve inside it. */
export function componentsSchema(): { $id: string; components: unknown } {
  return { $id: SCHEMA_ID, components: loadOpenApi().document.components };
}

/** A response schema referencing one of the document's component schemas (precompiled serialisation). */
export function schemaRef(name: string): { $ref: string } {
  return { $ref: `${SCHEMA_ID}#/components/schemas/${name}` };
}
