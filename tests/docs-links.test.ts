// The README and docs/ as a newcomer reads them: the README fits on a few screens, every relative
// link (and its #anchor) leads somewhere, every citation of the interface contract (`§N`) opens a
// section of a file in the repository (docs/contract/README.md says how they are written), nothing
// points at documents outside it, and the README's exit-code table says what src/errors.ts does.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/errors.js';

const ROOT = resolve(import.meta.dirname, '..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');

/** Every file under `dir` (recursively) whose name passes `keep`, skipping installed packages. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

const pages = [README, ...filesUnder(DOCS, (name) => name.endsWith('.md'))];

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

// The section sign, spelled as an escape so this file's own examples are not citations.
const SECTION = '\u00a7';
const CITATION = new RegExp(`${SECTION}\\s?(\\d+(?:\\.\\d+)*)`, 'g');
/** A contract file as code and docs name it: `docs/contract/cli.md`, `contract/cli.md`. */
const CONTRACT_FILE = /(?:[\w.-]+\/)*contract\/[\w-]+\.md\b/g;
/** Inside docs/contract/, the files name each other plainly: `cli.md`, `../ddx.md`. */
const SIBLING_FILE = /(?:[\w.-]+\/)*[\w-]+\.md\b/g;
/** Markdown's inline code, blanked to spaces (a file name in backticks is data, not a citation). */
const blankInlineCode = (text: string) => text.replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
/** A HELIX artifact id of the user's own project (`SPEC-CLI`, `TD-002`) right before the sign. */
const ARTIFACT_BEFORE = /\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\s*$/;
/** Documents that live outside the repository: the design seeds and the shared contract folder. */
const OUTSIDE = /\bseeds? 0\d\d\b|\bseed \d{3}\/\d{3}\b|\/work\/shared\b|\bshared\/(?:contract|seeds|notes)\b|\bcontract[ ]addendum\b/;

/** The numbered headings of a markdown file: `## 6. helix run` → 6, `### 6.4 After…` → 6.4. */
function sectionNumbers(file: string): Set<string> {
  const numbers = new Set<string>();
  for (const [, number] of readFileSync(file, 'utf8').replace(FENCED, '').matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)) numbers.add(number!);
  return numbers;
}

interface Citation {
  file: string;
  line: number;
  text: string;
  problem: string;
}

/**
 * What is wrong with each contract citation in `text` (a file's contents; markdown without its
 * fenced blocks). A citation belongs to the document named last before it on its line; with none
 * there, a markdown page's citation is of the page itself, and code's is of the document named
 * last before it in the file. A sign right after an artifact id belongs to the user's own project
 * and is not checked.
 */
function badCitations(file: string, text: string): Citation[] {
  const bad: Citation[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const inContract = relative(ROOT, file).startsWith(`docs${sep}contract${sep}`);
  if (file.endsWith('.md')) text = blankInlineCode(text);
  const documents = [...text.matchAll(inContract ? SIBLING_FILE : CONTRACT_FILE)].map((m) => ({ at: m.index!, path: m[0] }));
  for (const match of text.matchAll(CITATION)) {
    const at = match.index!;
    const before = text.slice(text.lastIndexOf('\n', at) + 1, at);
    if (ARTIFACT_BEFORE.test(before)) continue;
    const line = lineOf(at);
    const lineStart = at - before.length;
    const onLine = documents.filter((d) => d.at >= lineStart && d.at < at).at(-1);
    const named = onLine ?? (file.endsWith('.md') ? { at, path: file } : documents.filter((d) => d.at < at).at(-1));
    const report = (problem: string) => bad.push({ file: relative(ROOT, file), line, text: match[0], problem });
    if (!named) {
      report('no document named before it');
      continue;
    }
    const target = [resolve(dirname(file), named.path), resolve(ROOT, named.path)].find((path) => existsSync(path));
    if (!target) report(`${named.path}: not in the repository`);
    else if (!sectionNumbers(target).has(match[1]!)) report(`${relative(ROOT, target)} has no section ${match[1]}`);
  }
  text.split('\n').forEach((content, i) => {
    if (OUTSIDE.test(content)) bad.push({ file: relative(ROOT, file), line: i + 1, text: OUTSIDE.exec(content)![0], problem: 'a document outside the repository' });
  });
  return bad;
}

const CITING = ['src', 'tests', 'scripts', 'bin', 'docs', 'examples', 'README.md'].flatMap((dir) =>
  filesUnder(join(ROOT, dir), (name) => /\.(ts|mts|mjs|js|sh|md)$/.test(name) || !name.includes('.')),
);

describe('contract citations', () => {
  it('every citation in src, tests, scripts, bin, examples and docs opens a numbered section of a file in the repository', () => {
    const bad = CITING.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      // fenced blocks blanked, not removed, so line numbers stay the file's
      return badCitations(file, file.endsWith('.md') ? text.replace(FENCED, (block) => block.replace(/[^\n]/g, ' ')) : text);
    });
    expect(bad).toEqual([]);
  });

  it('the check sees a citation of an absent file, an absent section, no file at all, and a document outside the repository', () => {
    const at = join(ROOT, 'src', 'example.ts');
    const problems = (text: string) => badCitations(at, text).map((c) => c.problem);
    expect(problems(`// (docs/contract/cli.md ${SECTION}6.4)`)).toEqual([]);
    expect(problems(`// (docs/contract/cli.md ${SECTION}6.4, ${SECTION}8)\n// later: ${SECTION}2`)).toEqual([]);
    expect(problems(`// (contract ${SECTION}8)`)).toEqual(['no document named before it']);
    expect(problems(`// (bash-interface ${SECTION}2.8)`)).toEqual(['no document named before it']);
    expect(problems(`// (docs/contract/no-such-file.md ${SECTION}2)`)).toEqual(['docs/contract/no-such-file.md: not in the repository']);
    expect(problems(`// (docs/contract/cli.md ${SECTION}99)`)).toEqual(['docs/contract/cli.md has no section 99']);
    expect(problems(`// (seed${' '}004: the backoff)`)).toEqual(['a document outside the repository']);
  });

  it("a section sign after the user's own artifact id is that project's text, not a citation", () => {
    const at = join(ROOT, 'scripts', 'demo.mjs');
    expect(badCitations(at, `echo "SPEC-CLI ${SECTION}2 says the parser runs in strict mode"`)).toEqual([]);
  });
});

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
