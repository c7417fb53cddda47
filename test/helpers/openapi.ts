import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule, { type FormatsPlugin } from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`: depending on the loader's interop the default
// import is the plugin itself or the module object holding it.
const addFormats: FormatsPlugin =
  (formatsModule as unknown as { default?: FormatsPlugin }).default ??
  (formatsModule as unknown as FormatsPlugin);

/**
 * The one schema oracle of the sandbox tests: the official OpenAPI 3.1 document of the API
 * (`@opensea/api-types/opensea-api.json`), compiled with ajv (JSON Schema draft 2020-12).
 *
 * `expectValidResponse(method, pathTemplate, status, body)` picks the operation's response schema
 * for that status and throws a readable error when `body` does not validate. Paths are the
 * document's templates (`/api/v2/events/collection/{slug}`). A 4xx/5xx response that the document
 * describes without a body schema (its shared `BadRequest`, `InternalError` …) is checked against
 * the document's standard error body `V1ErrorWrapper` (`{"errors": [string]}`).
 */

const require = createRequire(import.meta.url);
const DOC_ID = 'https://harpoon.invalid/opensea-api.json';

interface MediaType {
  readonly schema?: unknown;
}
interface ResponseObject {
  readonly $ref?: string;
  readonly description?: string;
  readonly content?: Readonly<Record<string, MediaType>>;
}
interface Operation {
  readonly operationId?: string;
  readonly responses?: Readonly<Record<string, ResponseObject>>;
}
interface OpenApiDoc {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, unknown>>;
    readonly responses?: Readonly<Record<string, ResponseObject>>;
  };
}

let loaded: { doc: OpenApiDoc; ajv: Ajv2020 } | undefined;
const compiled = new Map<string, ValidateFunction>();

function load(): { doc: OpenApiDoc; ajv: Ajv2020 } {
  if (loaded) return loaded;
  const file = require.resolve('@opensea/api-types/opensea-api.json');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as OpenApiDoc;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // OpenAPI's numeric formats: int32/int64 must be integers (int32 in range); float/double any number.
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  // `byte` is base64 in OpenAPI, but the document puts it on hex fields (zoneHash): accept any string.
  ajv.addFormat('byte', { type: 'string', validate: () => true });
  // The components as one schema resource: `#/components/schemas/X` resolves inside it.
  ajv.addSchema({ $id: DOC_ID, components: { schemas: patched(doc.components.schemas) } });
  loaded = { doc, ajv };
  return loaded;
}

/**
 * Known defects of the document, patched here and nowhere else:
 * - `TransactionData.input_data` (fulfillment data) is generated from Java classes: integer
 *   uint256 fields, `typeAsString`/`nativeValueCopy` noise, a `oneOf` whose branches overlap. The
 *   wire keys it by Solidity parameter name with decimal strings (shared/reference/opensea-wire.md
 *   §2 Fulfillment: "don't copy it"). Checked as an object; its content is the market tests' job.
 */
function patched(schemas: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schemas };
  const td = schemas['TransactionData'] as { properties?: Record<string, unknown> } | undefined;
  if (td?.properties?.['input_data'] !== undefined) {
    out['TransactionData'] = { ...td, properties: { ...td.properties, input_data: { type: 'object' } } };
  }
  return out;
}

/** Rewrites document-relative refs (`#/components/...`) to refs into the registered resource. */
function absolutize(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOC_ID}${value}` : value,
  );
}

function resolveResponse(doc: OpenApiDoc, r: ResponseObject): ResponseObject {
  if (r.$ref === undefined) return r;
  const name = r.$ref.replace('#/components/responses/', '');
  const target = doc.components.responses?.[name];
  if (!target) throw new Error(`OpenAPI: unresolved response ref ${r.$ref}`);
  return target;
}

/** True when the document has this operation (method + path template). */
export function hasOperation(method: string, pathTemplate: string): boolean {
  return load().doc.paths[pathTemplate]?.[method.toLowerCase()] !== undefined;
}

/** The JSON schema the document gives for (method, path, status), or undefined when it gives none. */
export function responseSchemaOf(method: string, pathTemplate: string, status: number): unknown {
  const { doc } = load();
  const op = doc.paths[pathTemplate]?.[method.toLowerCase()];
  if (!op) {
    throw new Error(`OpenAPI: no operation ${method.toUpperCase()} ${pathTemplate} in opensea-api.json`);
  }
  const raw = op.responses?.[String(status)] ?? op.responses?.['default'];
  if (!raw) {
    throw new Error(
      `OpenAPI: ${method.toUpperCase()} ${pathTemplate} documents no ${status} response (documented: ${Object.keys(op.responses ?? {}).join(', ')})`,
    );
  }
  const resp = resolveResponse(doc, raw);
  const media = resp.content ? Object.values(resp.content)[0] : undefined;
  if (media?.schema !== undefined) return media.schema;
  return status >= 400 ? { $ref: '#/components/schemas/V1ErrorWrapper' } : undefined;
}

function validatorFor(method: string, pathTemplate: string, status: number): ValidateFunction {
  const key = `${method.toUpperCase()} ${pathTemplate} ${status}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const schema = responseSchemaOf(method, pathTemplate, status);
  if (schema === undefined) {
    throw new Error(`OpenAPI: ${key} has no response body schema; check it another way`);
  }
  const fn = load().ajv.compile(absolutize(schema) as object);
  compiled.set(key, fn);
  return fn;
}

function valueAt(body: unknown, pointer: string): unknown {
  let cur = body;
  for (const part of pointer.split('/').slice(1)) {
    const k = part.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined;
  }
  return cur;
}

function describe(errors: readonly ErrorObject[], body: unknown): string {
  const lines = errors.slice(0, 15).map((e) => {
    const at = e.instancePath === '' ? '(body)' : e.instancePath;
    const got = JSON.stringify(valueAt(body, e.instancePath));
    const shown = got === undefined ? 'undefined' : got.length > 120 ? `${got.slice(0, 117)}...` : got;
    return `  ${at} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} (schema ${e.schemaPath}; value ${shown})`;
  });
  if (errors.length > 15) lines.push(`  … and ${errors.length - 15} more`);
  return lines.join('\n');
}

/**
 * Asserts that `body` is a valid response of the operation for `status`. Throws an Error listing
 * each violation (where in the body, what rule, the offending value) otherwise.
 */
export function expectValidResponse(
  method: string,
  pathTemplate: string,
  status: number,
  body: unknown,
): void {
  const validate = validatorFor(method, pathTemplate, status);
  if (validate(body)) return;
  throw new Error(
    `response of ${method.toUpperCase()} ${pathTemplate} (${status}) does not match opensea-api.json:\n${describe(validate.errors ?? [], body)}`,
  );
}

/** Asserts `value` validates against `#/components/schemas/<name>` of the document. */
export function expectSchema(name: string, value: unknown): void {
  const { doc, ajv } = load();
  if (doc.components.schemas[name] === undefined) throw new Error(`OpenAPI: no schema named ${name}`);
  const key = `schema:${name}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
    compiled.set(key, validate);
  }
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
    throw new Error(`${name} does not validate against opensea-api.json:\n  ${errors.join('\n  ')}`);
  }
}
