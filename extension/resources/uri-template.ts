/**
 * RFC 6570 URI templates, as MCP resource templates use them: the variable names of a template, and
 * expansion up to level 3 (every operator, several variables per expression) with string values. Level 4
 * modifiers are understood as far as strings go: a prefix (`{var:3}`) truncates, an explode (`{var*}`)
 * changes nothing for a single string.
 */

interface Operator {
  first: string;
  separator: string;
  /** Expands as `name=value` pairs (`;`, `?`, `&`). */
  named: boolean;
  /** What follows the name of an empty value: `?x=` but `;x`. */
  ifEmpty: string;
  /** `+` and `#` keep reserved characters (`/`, `?`, `:`, …) and existing percent-escapes as they are. */
  allowReserved: boolean;
}

const OPERATORS: Record<string, Operator> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', allowReserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', allowReserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', allowReserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
};

const EXPRESSION = /\{([^{}]*)\}/g;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

interface VariableSpec {
  name: string;
  /** Level 4 prefix length (`{var:3}`). */
  prefix?: number;
}

function parseExpression(body: string): { operator: Operator; variables: VariableSpec[] } {
  const first = body.charAt(0);
  const operatorKey = first in OPERATORS && first !== '' ? first : '';
  const list = operatorKey ? body.slice(1) : body;
  const variables = list
    .split(',')
    .map((spec) => spec.trim())
    .filter(Boolean)
    .map((spec): VariableSpec => {
      const match = /^([^:*]+)(?::(\d+)|\*)?$/.exec(spec);
      if (!match) return { name: spec };
      const name = match[1] ?? spec;
      return match[2] ? { name, prefix: Number(match[2]) } : { name };
    });
  return { operator: OPERATORS[operatorKey] ?? OPERATORS['']!, variables };
}

/** The variable names of a template, each once, in order of appearance. */
export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(EXPRESSION)) {
    for (const { name } of parseExpression(match[1] ?? '').variables) names.add(name);
  }
  return [...names];
}

/** Percent-encodes one character as UTF-8 (`encodeURIComponent` leaves `!'()*` alone, RFC 3986 does not). */
function escapeChar(char: string): string {
  const encoded = encodeURIComponent(char);
  return encoded === char ? `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : encoded;
}

function encode(value: string, allowReserved: boolean): string {
  let out = '';
  const chars = [...value];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (UNRESERVED.test(char) || (allowReserved && RESERVED.test(char))) out += char;
    else if (allowReserved && char === '%' && /^[0-9A-Fa-f]{2}$/.test(`${chars[i + 1]}${chars[i + 2]}`)) {
      out += char;
    } else out += escapeChar(char);
  }
  return out;
}

/**
 * Expands a template with string values. A variable that is absent (or `undefined`) is left out with
 * its name and separator, as RFC 6570 says for undefined variables; an empty string is defined
 * (`{?q}` with `q: ''` gives `?q=`).
 */
export function expandTemplate(template: string, values: Record<string, string | undefined>): string {
  return template.replace(EXPRESSION, (_whole, body: string) => {
    const { operator, variables } = parseExpression(body);
    const parts: string[] = [];
    for (const { name, prefix } of variables) {
      const raw = Object.hasOwn(values, name) ? values[name] : undefined;
      if (raw === undefined) continue;
      const value = encode(
        prefix === undefined ? raw : [...raw].slice(0, prefix).join(''),
        operator.allowReserved,
      );
      if (!operator.named) parts.push(value);
      else parts.push(value === '' ? `${name}${operator.ifEmpty}` : `${name}=${value}`);
    }
    return parts.length ? operator.first + parts.join(operator.separator) : '';
  });
}
