// JSON the way DDx's Go code writes it, for the stand-ins. encoding/json rules that matter here:
// maps (a bead's top level, Extra values) are written with keys sorted; structs keep their field
// order; strings escape <, > and & as \u003c \u003e \u0026 and U+2028/U+2029 (json.Marshal's
// HTML-safe default — DDx's WriteAll calls json.Marshal per bead, so its SetEscapeHTML(false)
// encoder never applies); time.Time is RFC 3339 with trailing zeros of the fraction dropped.

/** A Go string literal as json.Marshal writes it. */
export function goString(text) {
  let out = '"';
  for (const ch of String(text)) {
    const code = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || ch === '<' || ch === '>' || ch === '&' || code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** A Go float64 as json.Marshal writes it ('f' format inside [1e-6, 1e21), exponent outside). */
export function goNumber(n) {
  if (!Number.isFinite(n)) throw new Error(`json: unsupported value: ${n}`);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(n);
}

/** Any decoded JSON value (map[string]any / []any / float64 / string / bool / nil). Maps sorted. */
export function goValue(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof GoRaw) return value.text;
  if (Array.isArray(value)) return `[${value.map(goValue).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${goString(k)}:${goValue(value[k])}`).join(',')}}`;
}

/** Pre-encoded JSON (a struct written in field order, a time). */
export class GoRaw {
  constructor(text) {
    this.text = text;
  }
}

/** A struct: [key, value, omitempty] triples in field order. */
export function goStruct(fields) {
  const parts = [];
  for (const [key, value, omitEmpty] of fields) {
    if (omitEmpty && (value === undefined || value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0))) continue;
    parts.push(`${goString(key)}:${goValue(value ?? (typeof value === 'number' ? 0 : ''))}`);
  }
  return new GoRaw(`{${parts.join(',')}}`);
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 time as Go's time.Time does; undefined when Go would refuse it. */
export function parseGoTime(text) {
  if (typeof text !== 'string') return undefined;
  const m = RFC3339.exec(text);
  if (!m || Number.isNaN(Date.parse(text))) return undefined;
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  const zone = m[4].toUpperCase() === 'Z' || m[4] === '+00:00' ? 'Z' : m[4];
  return { text: `${m[1]}T${m[2]}${fraction === '.' ? '' : fraction}${zone}`, ms: Date.parse(text) };
}

export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** time.Now().UTC() as json.Marshal writes it (nanosecond form, trailing zeros dropped). */
export function goNow(date = new Date()) {
  return date.toISOString().replace(/\.?0+Z$/, 'Z');
}

/** time.Now().UTC().Format(time.RFC3339): seconds only. */
export function goNowSeconds(date = new Date()) {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** json.MarshalIndent-style output of a pre-built value, as an Encoder with SetIndent("", "  ") writes it. */
export function indent(text) {
  return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
}
