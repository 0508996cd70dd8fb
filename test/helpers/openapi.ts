/**
 * Contract validation against the vendor's OpenAPI documents in `test/fixtures/mintlify/`.
 *
 * Built directly on Ajv rather than openapi-backend. What openapi-backend 5.21 did with these specs:
 * - neither document has `operationId`s, and openapi-backend only registers validators for
 *   operations that have one, so every request/response silently validated as "valid";
 * - its Ajv instances have no `date-time`/`uri` formats (they are ignored with a warning);
 * - with `validate: true` it checks documents against the OpenAPI 3.0 meta-schema and rejects
 *   analytics.openapi.json (OpenAPI 3.1: `type: ["string", "null"]`, `$ref` with siblings,
 *   `webhooks`) with 159 errors; without it, 3.1 schemas would be compiled as draft-07.
 *
 * So here each document gets its own Ajv instance of the right dialect: OpenAPI 3.0.x schemas use
 * Ajv's draft-07 class (which understands the OpenAPI `nullable` keyword), OpenAPI 3.1.x schemas use
 * `Ajv2020` (JSON Schema draft 2020-12, the 3.1 dialect). `#/components/...` references resolve by
 * registering the document's `components` under a `urn:openapi:<name>` id and rewriting each
 * operation schema's local `$ref`s to that id. Formats come from ajv-formats plus the OpenAPI ones
 * (`int32`, `int64`, `float`, `double`, `byte`, `binary`, `password`) and `ulid` (used by the analytics
 * spec). Every operation's schemas are compiled eagerly, so a schema Ajv cannot compile fails loudly.
 *
 * Validation is synchronous and returns human-readable error strings (empty list = valid).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** A JSON value as parsed from a spec document. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** An OpenAPI 3.0/3.1 document, loosely typed (only the parts this helper reads are relied on). */
export interface OpenApiDocument {
  openapi: string;
  paths?: Record<string, Record<string, Json>>;
  components?: JsonObject;
  security?: Json;
  [key: string]: Json | undefined;
}

/** A request to check: what a client sent (or a test recorded). */
export interface RequestToValidate {
  /** HTTP method, any case. */
  method: string;
  /** Path such as `/v2/agent/p1/job`; may include a `?query` part, or be a full URL (origin is ignored). */
  path: string;
  /** Query parameters (merged over any `?query` in `path`). Values are the raw strings as sent. */
  query?: Record<string, string | string[] | undefined> | URLSearchParams;
  /** Headers, any key case. Used for the bearer-auth check, header parameters and content-type. */
  headers?: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw body string (parsed here), or undefined when none was sent. */
  body?: unknown;
}

/** A response to check against the operation matched by `method` + `path`. */
export interface ResponseToValidate {
  method: string;
  /** Same forms as {@link RequestToValidate.path}. */
  path: string;
  /** HTTP status; must be declared for the operation (exact code, `NXX` range or `default`). */
  status: number;
  /** Parsed JSON body (or raw string, parsed here); undefined when the response has none. */
  body?: unknown;
}

/** The operation a method + path resolved to. */
export interface MatchedOperation {
  /** Name of the document it comes from (e.g. `admin`, `analytics`). */
  spec: string;
  method: string;
  /** Path template as written in the spec, e.g. `/v2/agent/{projectId}/job/{id}`. */
  template: string;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** Status keys the spec declares for the operation (`"201"`, `"4XX"`, `"default"`, …). */
  statuses: string[];
}

/** Validator over a set of OpenAPI documents; see {@link createOpenApiValidator}. */
export interface OpenApiValidator {
  /** Finds the operation for a method and path, or undefined. */
  matchOperation(method: string, path: string): MatchedOperation | undefined;
  /** Errors in a request (path, query and header parameters, bearer auth, content-type, JSON body). */
  validateRequest(req: RequestToValidate): string[];
  /** Errors in a response (status declared for the operation, JSON body against its schema). */
  validateResponse(res: ResponseToValidate): string[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  validate: ValidateFunction;
}

interface CompiledOperation {
  spec: string;
  method: string;
  template: string;
  matcher: RegExp;
  paramNames: string[];
  /** Number of literal (non-template) characters: more literal = more specific match. */
  specificity: number;
  parameters: Parameter[];
  bearerRequired: boolean;
  body?: { required: boolean; mediaTypes: string[]; validate?: ValidateFunction };
  responses: Map<string, { mediaTypes: string[]; validate?: ValidateFunction }>;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local JSON pointer (`#/components/...`) inside a document. */
function resolvePointer(doc: OpenApiDocument, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) throw new Error(`Only local $refs are supported, got ${ref}`);
  let node: Json | undefined = doc as unknown as Json;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
  }
  return node;
}

/** Follows `$ref` on non-schema objects (parameters, request bodies, responses). */
function deref(doc: OpenApiDocument, node: Json | undefined): JsonObject | undefined {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${current.$ref}`);
    current = resolvePointer(doc, current.$ref);
  }
  return isObject(current) ? current : undefined;
}

/** Deep-copies a schema, pointing local `$ref`s at the registered components schema `base`. */
function rebaseRefs(schema: Json, base: string): Json {
  if (Array.isArray(schema)) return schema.map((item) => rebaseRefs(item, base));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#')
        ? `${base}${value}`
        : rebaseRefs(value, base);
  }
  return out;
}

function formatErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const params = e.params as { allowedValues?: unknown; additionalProperty?: unknown };
    const extra =
      e.keyword === 'enum'
        ? ` ${JSON.stringify(params.allowedValues)}`
        : e.keyword === 'additionalProperties'
          ? ` "${String(params.additionalProperty)}"`
          : '';
    return `${where}${e.instancePath ? ` at ${e.instancePath}` : ''}: ${e.message ?? e.keyword}${extra}`;
  });
}

function createAjv(version: string, coerceTypes: boolean): Ajv | Ajv2020 {
  const options = { strict: false, allErrors: true, coerceTypes } as const;
  const ajv = version.startsWith('3.0') ? new Ajv(options) : new Ajv2020(options);
  addFormats.default(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('byte', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat('binary', true);
  ajv.addFormat('password', true);
  ajv.addFormat('ulid', /^[0-9A-HJKMNP-TV-Z]{26}$/i);
  return ajv;
}

function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function headerValue(headers: RequestToValidate['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/** Splits a path or URL into a pathname and its query. */
function splitPath(path: string): { pathname: string; search: URLSearchParams } {
  const url = new URL(path, 'http://placeholder.invalid');
  return { pathname: url.pathname, search: url.searchParams };
}

/** Parses a raw string body as JSON; returns an error string when it is not JSON. */
function parseBody(body: unknown): { value: unknown; error?: string } {
  if (typeof body !== 'string') return { value: body };
  if (body === '') return { value: undefined };
  try {
    return { value: JSON.parse(body) as unknown };
  } catch (err) {
    return { value: undefined, error: `body is not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * Builds a validator over the given OpenAPI documents (3.0.x via Ajv draft-07 + `nullable`,
 * 3.1.x via Ajv 2020-12). A document's paths are matched below its `basePath` (default '': as
 * written in `paths`, true for the admin and analytics specs, whose server is
 * `https://api.mintlify.com`; the discovery spec's server is `https://api.mintlify.com/discovery`,
 * so it is given `basePath: '/discovery'`).
 *
 * @param documents - `{ name, document, basePath? }`; `name` only labels errors and matches.
 * @throws Error if a schema cannot be compiled or a `$ref` is not local.
 */
export function createOpenApiValidator(
  documents: { name: string; document: OpenApiDocument; basePath?: string }[],
): OpenApiValidator {
  const operations: CompiledOperation[] = [];

  for (const { name, document: doc, basePath = '' } of documents) {
    const base = `urn:openapi:${name}`;
    const bodyAjv = createAjv(doc.openapi, false);
    const paramAjv = createAjv(doc.openapi, true);
    for (const ajv of [bodyAjv, paramAjv]) ajv.addSchema({ components: doc.components ?? {} }, base);
    const compile = (ajv: Ajv | Ajv2020, schema: Json): ValidateFunction =>
      ajv.compile(rebaseRefs(schema, base) as object);

    const globalBearer = Array.isArray(doc.security) && doc.security.length > 0;
    for (const [template, item] of Object.entries(doc.paths ?? {})) {
      const paramNames: string[] = [];
      const pattern = template
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const m = /^\{([^}]+)\}$/.exec(part);
          if (m?.[1]) {
            paramNames.push(m[1]);
            return '([^/]+)';
          }
          return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      const pathLevelParams = Array.isArray(item.parameters) ? item.parameters : [];

      for (const method of HTTP_METHODS) {
        const op = deref(doc, item[method]);
        if (!op) continue;

        // Operation parameters override path-level ones with the same name + location.
        const byKey = new Map<string, JsonObject>();
        for (const raw of [...pathLevelParams, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
          const p = deref(doc, raw);
          if (p && typeof p.name === 'string' && typeof p.in === 'string') byKey.set(`${p.in}:${p.name}`, p);
        }
        const parameters: Parameter[] = [...byKey.values()].map((p) => ({
          name: String(p.name),
          in: String(p.in),
          required: p.required === true || p.in === 'path',
          validate: compile(paramAjv, isObject(p.schema) ? p.schema : {}),
        }));

        const security = op.security ?? doc.security;
        const bearerRequired = Array.isArray(security) ? security.length > 0 : globalBearer;

        let body: CompiledOperation['body'];
        const requestBody = deref(doc, op.requestBody);
        if (requestBody) {
          const content = isObject(requestBody.content) ? requestBody.content : {};
          const jsonSchema = deref(doc, content['application/json'])?.schema;
          body = {
            required: requestBody.required === true,
            mediaTypes: Object.keys(content),
            validate: jsonSchema === undefined ? undefined : compile(bodyAjv, jsonSchema),
          };
        }

        const responses: CompiledOperation['responses'] = new Map();
        for (const [status, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
          const response = deref(doc, raw);
          const content = response && isObject(response.content) ? response.content : {};
          const jsonSchema = deref(doc, content['application/json'])?.schema;
          responses.set(status.toUpperCase(), {
            mediaTypes: Object.keys(content),
            validate: jsonSchema === undefined ? undefined : compile(bodyAjv, jsonSchema),
          });
        }

        operations.push({
          spec: name,
          method,
          template,
          matcher: new RegExp(`^${basePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${pattern}$`),
          paramNames,
          specificity: basePath.length + template.replace(/\{[^}]+\}/g, '').length,
          parameters,
          bearerRequired,
          body,
          responses,
        });
      }
    }
  }

  function find(method: string, path: string): { op: CompiledOperation; params: Record<string, string> } | string {
    const { pathname } = splitPath(path);
    const lower = method.toLowerCase();
    const candidates = operations
      .map((op) => ({ op, m: op.matcher.exec(pathname) }))
      .filter((c): c is { op: CompiledOperation; m: RegExpExecArray } => c.m !== null)
      .sort((a, b) => b.op.specificity - a.op.specificity);
    if (candidates.length === 0) return `no operation in the specs matches path ${pathname}`;
    const hit = candidates.find((c) => c.op.method === lower);
    if (!hit) {
      const allowed = [...new Set(candidates.map((c) => c.op.method.toUpperCase()))].join(', ');
      return `method ${method.toUpperCase()} is not declared for ${candidates[0]?.op.template} (declared: ${allowed})`;
    }
    const params: Record<string, string> = {};
    hit.op.paramNames.forEach((n, i) => {
      const raw = hit.m[i + 1] ?? '';
      try {
        params[n] = decodeURIComponent(raw);
      } catch {
        params[n] = raw;
      }
    });
    return { op: hit.op, params };
  }

  function matchOperation(method: string, path: string): MatchedOperation | undefined {
    const found = find(method, path);
    if (typeof found === 'string') return undefined;
    const { op, params } = found;
    return {
      spec: op.spec,
      method: op.method.toUpperCase(),
      template: op.template,
      params,
      statuses: [...op.responses.keys()],
    };
  }

  function validateRequest(req: RequestToValidate): string[] {
    const found = find(req.method, req.path);
    if (typeof found === 'string') return [found];
    const { op, params } = found;
    const errors: string[] = [];

    // Query: the path's own `?query`, overridden by `req.query`.
    const query = new Map<string, string[]>();
    for (const [k, v] of splitPath(req.path).search) query.set(k, [...(query.get(k) ?? []), v]);
    const extra = req.query instanceof URLSearchParams ? [...req.query] : Object.entries(req.query ?? {});
    const overridden = new Set<string>();
    for (const [k, v] of extra) {
      if (v === undefined) continue;
      if (!overridden.has(k)) query.set(k, []);
      overridden.add(k);
      query.set(k, [...(query.get(k) ?? []), ...(Array.isArray(v) ? v : [v])]);
    }

    for (const p of op.parameters) {
      let value: unknown;
      if (p.in === 'path') value = params[p.name];
      else if (p.in === 'query') {
        const values = query.get(p.name);
        value = values === undefined ? undefined : values.length === 1 ? values[0] : values;
      } else if (p.in === 'header') value = headerValue(req.headers, p.name.toLowerCase());
      else continue; // cookies: not used by these APIs
      if (value === undefined) {
        if (p.required) errors.push(`${p.in} parameter "${p.name}" is required`);
        continue;
      }
      // The parameter validators coerce strings ("50" → 50) before checking the schema.
      if (!p.validate(value)) errors.push(...formatErrors(`${p.in} parameter "${p.name}"`, p.validate.errors));
    }
    const declaredQuery = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const k of query.keys()) {
      if (!declaredQuery.has(k)) errors.push(`query parameter "${k}" is not declared by the spec`);
    }

    if (op.bearerRequired) {
      const auth = headerValue(req.headers, 'authorization');
      if (!auth || !/^Bearer \S+$/.test(auth))
        errors.push('header "authorization" must be "Bearer <token>" (bearerAuth)');
    }

    const { value: body, error: parseError } = parseBody(req.body);
    if (parseError) errors.push(`request ${parseError}`);
    else if (!op.body) {
      if (body !== undefined) errors.push('request body is not allowed: the operation declares no requestBody');
    } else if (body === undefined) {
      if (op.body.required) errors.push('request body is required');
    } else {
      const mediaType = mediaTypeOf(headerValue(req.headers, 'content-type'));
      if (!mediaType)
        errors.push(`header "content-type" is missing (expected one of ${op.body.mediaTypes.join(', ')})`);
      else if (!op.body.mediaTypes.includes(mediaType)) {
        errors.push(`content-type ${mediaType} is not declared (expected one of ${op.body.mediaTypes.join(', ')})`);
      }
      if (op.body.validate && !op.body.validate(body))
        errors.push(...formatErrors('request body', op.body.validate.errors));
    }
    return errors;
  }

  function validateResponse(res: ResponseToValidate): string[] {
    const found = find(res.method, res.path);
    if (typeof found === 'string') return [found];
    const { op } = found;
    const code = String(res.status);
    const response = op.responses.get(code) ?? op.responses.get(`${code[0]}XX`) ?? op.responses.get('DEFAULT');
    if (!response) {
      return [
        `status ${code} is not declared for ${op.method.toUpperCase()} ${op.template} (declared: ${[...op.responses.keys()].join(', ')})`,
      ];
    }
    const { value: body, error: parseError } = parseBody(res.body);
    if (parseError) return [`response ${parseError}`];
    if (response.mediaTypes.length === 0) {
      return body === undefined || body === null
        ? []
        : [`response ${code} declares no content but a body was returned`];
    }
    if (!response.validate) return []; // non-JSON media types only: nothing to check
    if (body === undefined) return [`response ${code} has no body (expected application/json)`];
    return response.validate(body) ? [] : formatErrors(`response ${code} body`, response.validate.errors);
  }

  return { matchOperation, validateRequest, validateResponse };
}

/** Absolute paths of the vendor spec fixtures (see `test/fixtures/mintlify/SOURCE.md`). */
export const SPEC_FILES = {
  admin: fileURLToPath(new URL('../fixtures/mintlify/admin-openapi.json', import.meta.url)),
  analytics: fileURLToPath(new URL('../fixtures/mintlify/analytics.openapi.json', import.meta.url)),
  discovery: fileURLToPath(new URL('../fixtures/mintlify/discovery-openapi.json', import.meta.url)),
  deployments: fileURLToPath(new URL('../fixtures/mintlify/deployments-openapi.json', import.meta.url)),
} as const;

/** Reads and parses one OpenAPI JSON document (e.g. a {@link SPEC_FILES} entry); throws if unreadable or not JSON. */
export function loadSpec(file: string): OpenApiDocument {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/**
 * Shared validator over the Mintlify admin (3.0.1), analytics (3.1.0), discovery (3.0.1, at `/discovery`)
 * and deployments (3.0.1, at `/v1`: its server URL ends in /v1) specs.
 */
export const mintlifyApi: OpenApiValidator = createOpenApiValidator([
  { name: 'admin', document: loadSpec(SPEC_FILES.admin) },
  { name: 'analytics', document: loadSpec(SPEC_FILES.analytics) },
  { name: 'discovery', document: loadSpec(SPEC_FILES.discovery), basePath: '/discovery' },
  { name: 'deployments', document: loadSpec(SPEC_FILES.deployments), basePath: '/v1' },
]);

/**
 * Validates a request against the Mintlify specs (admin-openapi.json, analytics.openapi.json,
 * discovery-openapi.json below `/discovery`):
 * the path must match a declared operation; path/query/header parameters are checked against their
 * schemas (query strings are coerced, so `limit=0` fails `minimum: 1`; undeclared query parameters are
 * errors); `Authorization: Bearer <token>` must be present (both specs require bearerAuth); a JSON body
 * must be sent with a declared content-type and match the requestBody schema.
 *
 * @returns error strings; empty when the request conforms.
 */
export function validateRequest(req: RequestToValidate): string[] {
  return mintlifyApi.validateRequest(req);
}

/**
 * Validates a response against the Mintlify specs: the status must be declared for the operation
 * (exact, `NXX` or `default`; e.g. 401 is not declared anywhere in these specs) and a JSON body must
 * match that status's schema.
 *
 * @returns error strings; empty when the response conforms.
 */
export function validateResponse(res: ResponseToValidate): string[] {
  return mintlifyApi.validateResponse(res);
}
