/** Validates real responses against the schemas of api/openapi.yml (paths, statuses, components). */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadOpenApi } from '../../src/http/openapi.js';

type Json = Record<string, any>;

interface Operation {
  template: string;
  pattern: RegExp;
  literals: number;
  responses: Json;
}

export class OpenApiValidator {
  private readonly ajv: Ajv;
  private readonly operations: Operation[];
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly document: Json;

  constructor() {
    this.document = loadOpenApi().document as Json;
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    for (const format of ['int32', 'int64', 'byte']) this.ajv.addFormat(format, true);
    this.ajv.addSchema({ $id: 'lqs', components: this.document.components });
    this.operations = Object.entries(this.document.paths as Json)
      .filter(([, item]) => item.get)
      .map(([template, item]) => ({
        template,
        pattern: new RegExp('^' + template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
        responses: item.get.responses,
      }));
  }

  /** The documented GET operation whose path matches `path` (the most specific one). */
  operationFor(path: string): Operation | undefined {
    return this.operations.filter((o) => o.pattern.test(path)).sort((a, b) => b.literals - a.literals)[0];
  }

  private resolve(node: Json): Json {
    if (node?.$ref?.startsWith('#/')) {
      const target = node.$ref
        .slice(2)
        .split('/')
        .reduce((n: Json, key: string) => n[key], this.document);
      return this.resolve(target);
    }
    return node;
  }

  /** Problems with a response (empty when it is documented and its body matches the schema). */
  check(url: string, status: number, contentType: string, body: string): string[] {
    const path = url.split('?')[0]!;
    const operation = this.operationFor(path);
    if (!operation) return [`${path}: no documented GET operation`];
    const response = operation.responses[String(status)];
    if (!response) return [`${operation.template}: status ${status} is not documented`];
    const content = this.resolve(response).content as Json | undefined;
    if (!content) return [];
    const mediaType = contentType.split(';')[0]!.trim();
    const media = content[mediaType];
    if (!media) return [`${operation.template} ${status}: content type ${mediaType} is not documented`];
    if (!mediaType.includes('json')) return [];
    const key = `${operation.template} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const schema = media.schema?.$ref ? { $ref: 'lqs' + media.schema.$ref } : media.schema;
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    if (validate(JSON.parse(body))) return [];
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '(body)'} ${e.message}`);
  }
}
