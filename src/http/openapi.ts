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

/**
 * A pattern built only from anchors, `\d`, `\.`, bracket classes of letters and digits, letters,
 * digits, `:` and `-`, groups, alternation and quantifiers: every string it matches consists of
 * characters that JSON writes as they are.
 */
const JSON_SAFE_PATTERN = /^\^?(?:\\d|\\\.|\[(?:[A-Za-z0-9]-[A-Za-z0-9]|[A-Za-z0-9])+\]|[A-Za-z0-9:-]|\{\d+(?:,\d*)?\}|[()|?*+])*\$?$/;

export function isJsonSafePattern(pattern: string): boolean {
  return JSON_SAFE_PATTERN.test(pattern);
}

/**
 * A copy of `schema` in which every string schema whose pattern admits only JSON-safe characters,
 * and every base64 string (`format: byte`), is serialised without the escape scan
 * (fast-json-stringify's `unsafe` format). Those strings (entity ids, timestamps, hex, base32,
 * base64) are produced by the service's own encoders, which the response tests check against the
 * document; the scan costs a character loop or a regular expression per value, thousands of values
 * in a large page.
 */
export function withUnescapedSafeStrings(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withUnescapedSafeStrings);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = withUnescapedSafeStrings(value);
  if (copy.type !== 'string') return copy;
  const safe = copy.format === undefined ? typeof copy.pattern === 'string' && isJsonSafePattern(copy.pattern) : copy.format === 'byte';
  if (safe) copy.format = 'unsafe';
  return copy;
}

/**
 * Shared schema holding the document's components, so `#/components/schemas/X` refs resolve inside
 * it; for serialisation, see withUnescapedSafeStrings.
 */
export function componentsSchema(): { $id: string; components: unknown } {
  return { $id: SCHEMA_ID, components: withUnescapedSafeStrings(loadOpenApi().document.components) };
}

/** A response schema referencing one of the document's component schemas (precompiled serialisation). */
export function schemaRef(name: string): { $ref: string } {
  return { $ref: `${SCHEMA_ID}#/components/schemas/${name}` };
}
