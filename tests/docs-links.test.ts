// The README and docs/ as a newcomer reads them: the README fits on a few screens, every relative
// link (and its #anchor) leads somewhere, and the README's exit-code table says what src/errors.ts does.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/errors.js';

const ROOT = resolve(import.meta.dirname, '..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const pages = [README, ...readdirSync(DOCS).filter((name) => name.endsWith('.md')).map((name) => join(DOCS, name))];

const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;

/** The page's text outside fenced code blocks and inline code, where `[x](y)` is not a link. */
const prose = (text: string): string => text.replace(FENCED, '').replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: the heading's text in lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of text.replace(FENCED, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count ? `${base}-${count}` : base);
  }
  return result;
}

interface Link {
  page: string;
  target: string;
}

function relativeLinks(page: string): Link[] {
  const links: Link[] = [];
  for (const [, target] of prose(readFileSync(page, 'utf8')).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:, …
    links.push({ page: relative(ROOT, page), target: target! });
  }
  return links;
}

/** Where a link goes wrong, or undefined when its file (and anchor) exist. */
function broken({ page, target }: Link): string | undefined {
  const [path, fragment] = target.split('#', 2) as [string, string | undefined];
  const file = path ? resolve(dirname(join(ROOT, page)), decodeURIComponent(path)) : join(ROOT, page);
  if (!existsSync(file)) return 'no such file';
  if (fragment && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment.toLowerCase())) return `no heading #${fragment}`;
  return undefined;
}

describe('README and docs/', () => {
  it('the README is at most 300 lines', () => {
    const lines = readFileSync(README, 'utf8').split('\n').length - 1;
    expect(lines).toBeLessThanOrEqual(300);
  });

  it('every relative link in README.md and docs/*.md leads to a file that exists (and to a heading it names)', () => {
    const links = pages.flatMap(relativeLinks);
    expect(links.length).toBeGreaterThan(0);
    const bad = links.map((link) => ({ ...link, problem: broken(link) })).filter((link) => link.problem);
    expect(bad).toEqual([]);
  });

  it('the link check sees a missing file and a missing heading', () => {
    expect(broken({ page: 'README.md', target: 'docs/no-such-page.md' })).toBe('no such file');
    expect(broken({ page: 'README.md', target: '#no-such-heading-anywhere' })).toBe('no heading #no-such-heading-anywhere');
  });

  it("the README's exit-code table lists exactly the codes of src/errors.ts", () => {
    const readme = readFileSync(README, 'utf8');
    const table = /^#{2,3} Exit codes\n([\s\S]*?)(?=\n#)/m.exec(readme);
    expect(table, 'README: no "Exit codes" section').not.toBeNull();
    const documented = new Set<number>();
    for (const [, cell] of table![1]!.matchAll(/^\|\s*([0-9][0-9 /]*?)\s*\|/gm)) {
      for (const code of cell!.split('/')) documented.add(Number(code.trim()));
    }
    const defined = new Set<number>(Object.values(EXIT));
    expect([...documented].sort((a, b) => a - b)).toEqual([...defined].sort((a, b) => a - b));
  });
});
