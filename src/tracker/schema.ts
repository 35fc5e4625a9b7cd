// What DDx would lose on its next rewrite of a record. DDx decodes its known fields into typed Go
// struct fields and silently keeps the zero value when a type does not match
// (DDx 93be5c8cb2 / ae663ca012 cli/internal/bead/marshal.go unmarshalBead: `_ = json.Unmarshal`):
// `labels: "a,b"` is dropped, `priority: "2"` becomes 0, a string-form dependency `["id"]`
// becomes `{"issue_id":"","depends_on_id":"","type":""}` and its target is gone.
// helix refuses to write such a record (exit 7) and `tracker doctor` reports those already there.
import type { Bead } from './bead.js';

type Kind = 'string' | 'int' | 'time' | 'strings' | 'deps';

/** DDx's known bead fields and their Go types (types.go). `schema_version` is current DDx only. */
const KNOWN_FIELDS: Record<string, Kind> = {
  id: 'string',
  title: 'string',
  status: 'string',
  priority: 'int',
  issue_type: 'string',
  schema_version: 'int',
  owner: 'string',
  created_at: 'time',
  created_by: 'string',
  updated_at: 'time',
  labels: 'strings',
  parent: 'string',
  description: 'string',
  acceptance: 'string',
  notes: 'string',
  dependencies: 'deps',
};

/** Optional fields DDx omits when empty: null there loses nothing. */
const OMITTED_WHEN_EMPTY = new Set(['owner', 'created_by', 'labels', 'parent', 'description', 'acceptance', 'notes', 'dependencies']);

/** Fields of one dependency object (a Go struct of strings). */
const DEPENDENCY_FIELDS = ['issue_id', 'depends_on_id', 'type', 'created_at', 'created_by', 'metadata'];

/** Go's time.Time accepts RFC 3339 only. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const describe = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value === 'object' ? 'an object' : `the ${typeof value} ${String(value)}`}`;
};

function fieldProblem(key: string, kind: Kind, value: unknown): string | undefined {
  if (value === null) return OMITTED_WHEN_EMPTY.has(key) ? undefined : `${key} is null (DDx would replace it with its zero value)`;
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : `${key} is ${describe(value)}, not a string (DDx would drop it)`;
    case 'int':
      return Number.isSafeInteger(value) ? undefined : `${key} is ${describe(value)}, not a whole number (DDx would read it as 0)`;
    case 'time':
      return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : `${key} is ${describe(value)}, not an RFC 3339 time (DDx would write 0001-01-01T00:00:00Z)`;
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : `${key} is ${describe(value)}, not a list of strings (DDx would drop it)`;
    case 'deps':
      return dependencyProblem(value);
  }
}

function dependencyProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return `dependencies is ${describe(value)}, not a list of dependency objects (DDx would drop it)`;
  for (let i = 0; i < value.length; i++) {
    const dep: unknown = value[i];
    if (typeof dep === 'string') {
      return `dependencies[${i}] is the string ${JSON.stringify(dep)}, not an object (DDx would rewrite it as an empty dependency and lose its target)`;
    }
    if (!dep || typeof dep !== 'object' || Array.isArray(dep)) return `dependencies[${i}] is ${describe(dep)}, not a dependency object (DDx would lose it)`;
    const record = dep as Record<string, unknown>;
    if (typeof record.depends_on_id !== 'string' || record.depends_on_id === '') {
      return `dependencies[${i}] has no depends_on_id (its target is lost)`;
    }
    for (const field of DEPENDENCY_FIELDS) {
      const v = record[field];
      if (v !== undefined && v !== null && typeof v !== 'string') return `dependencies[${i}].${field} is ${describe(v)}, not a string (DDx would drop it)`;
    }
  }
  return undefined;
}

/** Every known field whose value DDx would drop or change, one line each (empty when none). */
export function schemaProblems(bead: Bead): string[] {
  const problems: string[] = [];
  for (const [key, kind] of Object.entries(KNOWN_FIELDS)) {
    if (!(key in bead)) continue;
    const problem = fieldProblem(key, kind, bead[key]);
    if (problem) problems.push(problem);
  }
  return problems;
}

/**
 * The repairs `tracker doctor --fix` can make without guessing: string-form dependencies become
 * `blocks` objects, a comma-separated `labels` string becomes a list, a numeric-string priority a
 * number. Returns the changed record, or undefined when there is nothing it can repair.
 */
export function repairSchema(bead: Bead): Bead | undefined {
  let changed = false;
  const fixed: Bead = { ...bead };
  if (Array.isArray(bead.dependencies) && bead.dependencies.some((d) => typeof d === 'string')) {
    fixed.dependencies = bead.dependencies.map((d) =>
      typeof d === 'string' ? { issue_id: bead.id, depends_on_id: d, type: 'blocks' } : d,
    );
    changed = true;
  }
  const labels: unknown = bead.labels;
  if (typeof labels === 'string') {
    fixed.labels = labels.split(',').map((l) => l.trim()).filter(Boolean);
    changed = true;
  }
  const priority: unknown = bead.priority;
  if (typeof priority === 'string' && /^\s*[0-4]\s*$/.test(priority)) {
    fixed.priority = Number(priority);
    changed = true;
  }
  return changed ? fixed : undefined;
}
