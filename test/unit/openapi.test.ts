import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isJsonSafePattern, loadOpenApi, withUnescapedSafeStrings } from '../../src/http/openapi.js';

/** Characters JSON must escape: the quote, the backslash and the controls. */
const ESCAPED = ['"', '\\', '\n', '\u0000', '\u001f'];

describe('isJsonSafePattern', () => {
  it('accepts patterns made of digits, escaped dots, alphanumeric classes, literals and quantifiers', () => {
    for (const pattern of [
      '^\\d{1,10}\\.\\d{1,10}\\.\\d{1,10}$',
      '^\\d{1,10}(\\.\\d{1,9})?$',
      '^[A-Z2-7]+$',
      '^(0x)?[A-Fa-f0-9]{40}$',
      '^0x([0-9a-fA-F]{512})?$',
      '^\\d{1,10}\\.\\d{1,10}\\.\\d{1,10}-\\d{1,19}-\\d{9}$',
      '^((eq|gt|gte|lt|lte):)?\\d{1,19}$',
    ]) {
      assert.equal(isJsonSafePattern(pattern), true, pattern);
    }
  });

  it('refuses wildcards, negated or other classes, and literals JSON escapes', () => {
    for (const pattern of ['^.*$', '^\\s+$', '^\\w+$', '^\\D$', '^[^a]$', '^a"b$', '^[a-z\\\\]$', '^a\\\\b$', '^[ -~]+$', '^a b$', 'x^y']) {
      assert.equal(isJsonSafePattern(pattern), false, pattern);
    }
  });

  it('accepts no pattern of the document that matches a string with a character JSON escapes', () => {
    const patterns = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const item of node) collect(item);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (typeof schema.pattern === 'string' && isJsonSafePattern(schema.pattern)) patterns.add(schema.pattern);
      Object.values(schema).forEach(collect);
    };
    collect(loadOpenApi().document);
    assert.ok(patterns.size >= 5, `the document's safe patterns: ${[...patterns].join(' ')}`);
    const samples = [
      '0.0.2',
      '1586567700.453054000',
      'ABCDEF234567',
      '0x' + 'ab'.repeat(20),
      'ab'.repeat(20),
      '0x',
      '0.0.2-1586567700-453054000',
      'gte:5',
    ];
    for (const pattern of patterns) {
      const regex = new RegExp(pattern);
      for (const sample of samples) {
        for (let at = 0; at <= sample.length; at++) {
          for (const c of ESCAPED) {
            const text = sample.slice(0, at) + c + sample.slice(at);
            assert.equal(regex.test(text), false, `${pattern} matches ${JSON.stringify(text)}`);
          }
        }
      }
    }
  });
});

describe('withUnescapedSafeStrings', () => {
  it('marks string schemas with a safe pattern or base64, nested anywhere, and leaves the rest and the input alone', () => {
    const input = {
      components: {
        schemas: {
          Id: { type: 'string', nullable: true, pattern: '^\\d{1,10}\\.\\d{1,10}\\.\\d{1,10}$' },
          Memo: { type: 'string' },
          Loose: { type: 'string', pattern: '^.*$' },
          Dated: { type: 'string', format: 'date-time', pattern: '^\\d+$' },
          Bytes: { type: 'string', format: 'byte', nullable: true },
          List: { type: 'array', items: [{ type: 'string', pattern: '^[a-f0-9]*$' }] },
        },
      },
    };
    const before = structuredClone(input);
    const out = withUnescapedSafeStrings(input) as { components: { schemas: Record<string, Record<string, unknown>> } };
    assert.deepEqual(input, before);
    const schemas = out.components.schemas;
    assert.equal(schemas.Id!.format, 'unsafe');
    assert.equal(schemas.Memo!.format, undefined);
    assert.equal(schemas.Loose!.format, undefined);
    assert.equal(schemas.Dated!.format, 'date-time');
    assert.equal(schemas.Bytes!.format, 'unsafe');
    assert.equal((schemas.List!.items as Record<string, unknown>[])[0]!.format, 'unsafe');
  });
});

describe('version', () => {
  it('is one number: the package, the API description and --version agree', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    const document = loadOpenApi().document as unknown as { info: { version: string } };
    assert.match(pkg.version, /^\d+\.\d+\.\d+$/);
    assert.equal(document.info.version, pkg.version);
    const changelog = readFileSync(new URL('../../../CHANGELOG.md', import.meta.url), 'utf8');
    assert.match(changelog, new RegExp(`^## ${pkg.version.replace(/\./g, '\\.')} `, 'm'), 'CHANGELOG.md has a section for this version');
  });
});
