/**
 * SEP-2243 (MCP 2026-07-28): a tool's inputSchema may mark primitive properties with `x-mcp-header`,
 * and a client calling it over Streamable HTTP mirrors each such argument into an `Mcp-Param-<Name>`
 * header. The SDK does this only inside its validating `callTool`; the daemon calls tools through the
 * plain request path (results pass through unvalidated), so it mirrors the headers itself, by the
 * same rules. A tool whose declarations break them must not be called at all.
 */

export interface HeaderDeclaration {
  path: string[];
  headerName: string;
}

export type HeaderScan =
  { valid: true; declarations: HeaderDeclaration[] } | { valid: false; reason: string };

const X_MCP_HEADER = 'x-mcp-header';
const RFC9110_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);
/** Subschemas a declaration may not sit under: only a chain of `properties` is reachable. */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
]);

const where = (path: string[]): string => (path.length ? path.join('.') : '<root>');

/** The `x-mcp-header` declarations of an inputSchema, or why they make the tool unusable. */
export function scanHeaderDeclarations(inputSchema: unknown): HeaderScan {
  const declarations: HeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    if (X_MCP_HEADER in schema) {
      if (!reachable || path.length === 0) {
        return `${where(path)}: x-mcp-header is only allowed on properties reached through "properties" alone`;
      }
      const name = schema[X_MCP_HEADER];
      if (typeof name !== 'string' || name.length === 0)
        return `${where(path)}: x-mcp-header must be a non-empty string`;
      if (!RFC9110_TOKEN.test(name)) {
        return `${where(path)}: x-mcp-header "${name}" is not an HTTP token (no spaces, control characters or delimiters)`;
      }
      const type = typeof schema.type === 'string' ? schema.type : undefined;
      if (!type || !PRIMITIVE_TYPES.has(type)) {
        return `${where(path)}: x-mcp-header is only allowed on string, integer and boolean properties, not ${type ?? 'an untyped one'}`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header "${name}" is declared twice (also as "${prior}")`;
      seen.set(name.toLowerCase(), name);
      declarations.push({ path, headerName: name });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : sub !== null && typeof sub === 'object' && MAP_KEYWORDS.has(keyword)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault ? { valid: false, reason: fault } : { valid: true, declarations };
}

/** A header value as is when it is plain printable ASCII, else `=?base64?<utf-8 in base64>?=`. */
function encode(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    !(value.startsWith('=?base64?') && value.endsWith('?=')) &&
    [...value].every((c) => c === '\t' || (c >= ' ' && c <= '~'));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The `Mcp-Param-*` headers of one call: a declared argument that is absent or null sends none. */
export function paramHeaders(declarations: HeaderDeclaration[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, headerName } of declarations) {
    let value: unknown = args;
    for (const key of path)
      value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    let text: string | undefined;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    if (text !== undefined) headers[`Mcp-Param-${headerName}`] = encode(text);
  }
  return headers;
}
