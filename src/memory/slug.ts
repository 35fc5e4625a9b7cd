// Memory names: the kebab slug of the trigger, at most 50 characters; a clash gets `-2`, `-3`, …
// (deterministic, so two stores of the same trigger in the same order get the same names).
import { MAX_NAME_LENGTH } from './constants.js';

export function slugify(trigger: string): string {
  const slug = trigger
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return trim(slug, MAX_NAME_LENGTH) || 'memory';
}

function trim(slug: string, max: number): string {
  return slug.slice(0, max).replace(/-+$/, '');
}

/** The first free name for `base` given a predicate telling which names are taken. */
export function uniqueName(base: string, taken: (name: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${trim(base, MAX_NAME_LENGTH - suffix.length)}${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}
