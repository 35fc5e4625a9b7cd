// docs/code-map.md held to the code (issue 40): on main at 02cc8bc it cited a `commands.ts` that no
// longer existed, left about 45 files of src/ out and missed the cli → agents and text → core
// arrows (among others). This test reads the map and checks four things:
//   1. every file of src/ is named in the section of its own folder (a heading naming the folder in
//      backticks), by its path from that folder (`runner.ts`, `embedders/select.ts`) or by a pattern the
//      map states as a convention (`commands/<name>.ts`: `<…>` stands for one path segment);
//   2. every path it names in backticks exists — a name starting at the root (src/, tests/,
//      scripts/, docs/, bin/), or in a folder's section a `.ts` or `.mjs` name read from that
//      folder — and every pattern matches at least one file;
//   3. every arrow its table states between folders has an import behind it, of the kind it says:
//      "run time" (at least one import that loads the module) or "types only" (none that does);
//   4. no import crosses a line it does not state: an import from one folder into another, type-only
//      ones included (a type is a dependency too), is on the table or the test fails;
//   5. a file name repeats in src/ only where the map's "Names that repeat" states the convention that
//      makes it repeat (a command's parts, a library's index.ts), and the words it defines hold: only
//      the gate's files say "gate" in their names, only src/cli's say "command" (issue 40 item 2: on
//      main at 2c6337e gate.ts, events.ts, store.ts, session.ts, paths.ts, common.ts and one-shot.ts
//      repeated with other meanings).
// It sits at tests/ beside docs-links.test.ts: it tests a document about all of src/, not one module.
// The imports are read with the TypeScript parser, by the reader tests/supervisor/layers.test.ts uses.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, target } from './helpers/imports.js';

const REPO = resolve(import.meta.dirname, '..');
const MAP = join(REPO, 'docs/code-map.md');

/** The folder level of the arrows; `src/` stands for the files at the root of src/. */
const FOLDERS = ['src/agents', 'src/cli', 'src/installer', 'src/memory', 'src/tracker', 'src/supervisor/core', 'src/supervisor/text', 'src/supervisor/shell'];
const ROOT_FILES = 'src/';
const KINDS = ['run time', 'types only'] as const;
type Kind = (typeof KINDS)[number];

/** The places a path the map names may start from the repository's root. */
const ROOTED = /^(src|tests|scripts|docs|bin)\//;
/** A name in backticks that is a path: rooted, or a source file's name (possibly a pattern). */
const PATH_LIKE = /^[\w.<>/-]+$/;
const SOURCE_NAME = /\.(ts|mjs)$/;

/** Every file under `dir` of the repository, as a path from the root, skipping installed packages. */
function filesUnder(dir: string): string[] {
  if (!existsSync(join(REPO, dir))) return [];
  return (readdirSync(join(REPO, dir), { recursive: true }) as string[]).filter((f) => !f.split('/').includes('node_modules')).map((f) => join(dir, f));
}

const sourceFiles = () => filesUnder('src').filter((f) => f.endsWith('.ts'));

/** The folder a file of src/ belongs to at the folder level, or undefined for a folder the level does not know. */
function folderOf(file: string): string | undefined {
  return FOLDERS.find((folder) => file.startsWith(folder + '/')) ?? (dirname(file) === 'src' ? ROOT_FILES : undefined);
}

interface Named {
  /** The path from the repository's root, `<…>` segments kept. */
  path: string;
  /** The folder whose section names it (its heading's folder), or '' outside such a section. */
  section: string;
  line: number;
}

interface Arrow {
  from: string;
  to: string;
  kind: string;
  line: number;
}

interface CodeMap {
  named: Named[];
  arrows: Arrow[];
}

const spans = (line: string) => [...line.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
const cells = (line: string) => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

/** A folder of the repository named in a heading, as a path from the root. */
function headingFolder(line: string): string {
  const folder = spans(line).map((s) => s.replace(/\/$/, '')).find((s) => ROOTED.test(s + '/') && existsSync(join(REPO, s)) && statSync(join(REPO, s)).isDirectory());
  return folder ?? '';
}

/** The names in backticks on a line that are paths, each from the repository's root; an unrooted one is read from `base`. */
function pathsOn(text: string, base: string): string[] {
  return spans(text)
    .filter((span) => PATH_LIKE.test(span) && (ROOTED.test(span) || (SOURCE_NAME.test(span) && base !== '')))
    .map((span) => (ROOTED.test(span) ? span : join(base, span)).replace(/\/$/, ''));
}

/**
 * Reads the map. Its first table is the arrows: from, imports, how, and what for — a file named
 * there is named from the folder it imports. Every other name in backticks outside code blocks is a
 * path when it starts at the root (`src/…`, `tests/…`) or, in a folder's section, when it names a
 * source file (`.ts`, `.mjs`) from that folder.
 */
function readMap(text: string): CodeMap {
  const named: Named[] = [];
  const arrows: Arrow[] = [];
  let section = '';
  let fenced = false;
  let table: 'before' | 'in' | 'after' = 'before';
  text.split('\n').forEach((line, index) => {
    const number = index + 1;
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) return;
    if (/^#{1,6}\s/.test(line)) section = headingFolder(line);
    if (line.trimStart().startsWith('|') && table !== 'after') {
      table = 'in';
      const [from, to, kind, ...rest] = cells(line);
      const folder = (cell: string | undefined) => (/^`[^`]+`$/.test(cell ?? '') ? cell!.slice(1, -1) : undefined);
      if (!folder(from) || !folder(to)) return;
      arrows.push({ from: folder(from)!, to: folder(to)!, kind: kind ?? '', line: number });
      for (const path of pathsOn(rest.join('|'), folder(to)!)) named.push({ path, section: '', line: number });
      return;
    }
    if (table === 'in') table = 'after';
    for (const path of pathsOn(line, section)) named.push({ path, section, line: number });
  });
  return { named, arrows };
}

/** A named path as a test of a file's path: each `<…>` segment stands for one segment of a name. */
function matcher(path: string): RegExp {
  const pieces = path.split(/(<[^>]+>)/).map((piece) => (piece.startsWith('<') ? '[^/]+' : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${pieces.join('')}$`);
}

const isPattern = (path: string) => path.includes('<');

function missingPaths(map: CodeMap): string[] {
  return map.named
    .filter(({ path }) => {
      if (!isPattern(path)) return !existsSync(join(REPO, path));
      const rooted = path.slice(0, path.indexOf('<'));
      return !filesUnder(dirname(rooted + 'x')).some((file) => matcher(path).test(file));
    })
    .map(({ path, line }) => `docs/code-map.md:${line} names ${path}, which ${isPattern(path) ? 'matches no file' : 'does not exist'}`);
}

function unnamedFiles(map: CodeMap): string[] {
  const inOwnSection = (file: string) => map.named.some(({ path, section }) => section.startsWith('src') && file.startsWith(section + '/') && matcher(path).test(file));
  return sourceFiles()
    .filter((file) => !inOwnSection(file))
    .map((file) => `${file} is not named in the section of ${dirname(file)} (or of a folder above it)`);
}

interface RealArrow {
  runTime: string[];
  typeOnly: string[];
}

let parsed: Map<string, RealArrow> | undefined;

/** The imports between the folders, as `from → to` with the imports behind each (read once: the parse takes a second). */
function realArrows(): Map<string, RealArrow> {
  if (parsed) return parsed;
  const arrows = new Map<string, RealArrow>();
  for (const file of sourceFiles()) {
    for (const { specifier, typeOnly } of importsOf(join(REPO, file))) {
      if (!specifier.startsWith('.')) continue;
      const from = folderOf(file);
      const to = folderOf(relative(REPO, target(join(REPO, file), specifier)));
      if (from === undefined || to === undefined || from === to) continue;
      const key = `${from} → ${to}`;
      const found = arrows.get(key) ?? { runTime: [], typeOnly: [] };
      (typeOnly ? found.typeOnly : found.runTime).push(`${file} imports ${specifier}`);
      arrows.set(key, found);
    }
  }
  parsed = arrows;
  return arrows;
}

function arrowFaults(map: CodeMap): string[] {
  const real = realArrows();
  const faults: string[] = [];
  const stated = new Set<string>();
  for (const { from, to, kind, line } of map.arrows) {
    const key = `${from} → ${to}`;
    const at = `docs/code-map.md:${line} states ${key}`;
    if (![ROOT_FILES, ...FOLDERS].includes(from) || ![ROOT_FILES, ...FOLDERS].includes(to)) faults.push(`${at}, but the folder level is ${[...FOLDERS, ROOT_FILES].join(', ')}`);
    if (stated.has(key)) faults.push(`${at} a second time`);
    stated.add(key);
    if (!KINDS.includes(kind as Kind)) faults.push(`${at} as '${kind}', not one of: ${KINDS.join(', ')}`);
    const imports = real.get(key);
    if (!imports) faults.push(`${at}, but no file of ${from} imports one of ${to}`);
    else if (kind === 'run time' && imports.runTime.length === 0) faults.push(`${at} at run time, but its imports are types only: ${imports.typeOnly[0]}`);
    else if (kind === 'types only' && imports.runTime.length > 0) faults.push(`${at} as types only, but ${imports.runTime[0]} at run time`);
  }
  for (const [key, imports] of real) {
    if (!stated.has(key)) faults.push(`${key} is not on the map's table, but ${[...imports.runTime, ...imports.typeOnly][0]}${imports.runTime.length === 0 ? ' (types only)' : ''}`);
  }
  return faults;
}

const map = () => readMap(readFileSync(MAP, 'utf8'));

/** The lines of the map's section whose heading says `title`, up to the next heading of its level or above. */
function sectionLines(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^#{1,6}\s/.test(line) && line.includes(title));
  if (start < 0) return [];
  const level = lines[start]!.match(/^#+/)![0].length;
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}}\\s`).test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The bullets of a section, each with its continuation lines joined. */
function bullets(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (/^- /.test(line)) out.push(line);
    else if (/^\s+\S/.test(line) && out.length > 0) out[out.length - 1] += ' ' + line.trim();
  }
  return out;
}

/**
 * The conventions that make a file name repeat: each bullet of "Names that repeat" names the places
 * of one convention as rooted patterns (`src/cli/commands/<name>.ts`); its first place is the anchor.
 */
function conventions(text: string): string[][] {
  return bullets(sectionLines(text, 'Names that repeat')).map((bullet) => pathsOn(bullet, '').filter(isPattern));
}

/** The file names that repeat in src/ and are not all at the places of one convention, the anchor among them. */
function uncoveredRepeats(text: string): string[] {
  const byName = new Map<string, string[]>();
  for (const file of sourceFiles()) byName.set(basename(file), [...(byName.get(basename(file)) ?? []), file]);
  const stated = conventions(text);
  return [...byName]
    .filter(([, files]) => files.length > 1)
    .filter(([, files]) => !stated.some((places) => files.some((f) => matcher(places[0]!).test(f)) && files.every((f) => places.some((place) => matcher(place).test(f)))))
    .map(([name, files]) => `${name} repeats (${files.join(', ')}) with no convention of the map's "Names that repeat" stating it`);
}

/** The words the map defines held on file names: "gate" only in the files its gate bullet names, "command" only in src/cli. */
function wordFaults(text: string): string[] {
  const gate = bullets(sectionLines(text, 'Words')).find((bullet) => bullet.startsWith('- **gate**'));
  const gateFiles = gate ? pathsOn(gate, '') : [];
  return [
    ...sourceFiles()
      .filter((file) => basename(file).includes('gate') && !gateFiles.includes(file))
      .map((file) => `${file} says "gate" but is not one of the gate's files (the map's Words, **gate**)`),
    ...sourceFiles()
      .filter((file) => basename(file).includes('command') && !file.startsWith('src/cli/'))
      .map((file) => `${file} says "command" outside src/cli (a command is a helix CLI command: the map's Words)`),
  ];
}

describe('docs/code-map.md', () => {
  it('every folder of src/ is at the folder level of the arrows', () => {
    expect(sourceFiles().filter((file) => folderOf(file) === undefined)).toEqual([]);
  });

  it('names every file of src/ in the section of its folder', () => {
    expect(unnamedFiles(map())).toEqual([]);
  });

  it('names only paths that exist', () => {
    expect(missingPaths(map())).toEqual([]);
  });

  it('states exactly the imports between folders that exist, and of the kind they are', () => {
    expect(arrowFaults(map())).toEqual([]);
  });

  it('lets a file name repeat only by a convention it states, and holds its words on file names', () => {
    const text = readFileSync(MAP, 'utf8');
    expect(conventions(text).length).toBeGreaterThanOrEqual(2);
    expect(uncoveredRepeats(text)).toEqual([]);
    expect(wordFaults(text)).toEqual([]);
  });

  it('sees a wrong map where it is wrong (each check on a map made wrong on purpose)', () => {
    const text = readFileSync(MAP, 'utf8');
    const real = map();
    expect(real.arrows.length).toBeGreaterThan(10);
    expect(real.named.length).toBeGreaterThan(sourceFiles().length / 2);
    // an arrow dropped: the import behind it is a line the map does not state
    const dropped = readMap(text.replace(/^\| `src\/cli` \| `src\/supervisor\/shell` \|.*\n/m, ''));
    expect(arrowFaults(dropped)).toContainEqual(expect.stringMatching(/^src\/cli → src\/supervisor\/shell is not on the map's table/));
    // an arrow with nothing behind it, and a kind that is wrong
    const invented = readMap(text.replace(/^(\| `src\/cli` \| `src\/supervisor\/shell` \|) run time (\|.*\n)/m, '$1 types only $2| `src/tracker` | `src/memory` | run time | nothing |\n'));
    expect(arrowFaults(invented)).toEqual(
      expect.arrayContaining([expect.stringMatching(/states src\/tracker → src\/memory, but no file/), expect.stringMatching(/states src\/cli → src\/supervisor\/shell as types only, but/)]),
    );
    // a file left out, and a file that is not there
    const renamed = readMap(text.replaceAll('runner.ts', 'runner-gone.ts'));
    expect(unnamedFiles(renamed)).toEqual(['src/supervisor/shell/runner.ts is not named in the section of src/supervisor/shell (or of a folder above it)']);
    expect(missingPaths(renamed)).toContainEqual(expect.stringMatching(/names src\/supervisor\/shell\/runner-gone\.ts, which does not exist$/));
    // a convention dropped: the commands' parts that share a name repeat with nothing stating why
    const noCommandParts = text.replace(/^- \*\*a command's parts\*\*.*\n(\s+.*\n)*/m, '');
    expect(uncoveredRepeats(noCommandParts)).toContainEqual(expect.stringMatching(/^status\.ts repeats \(/));
    // a gate file the words do not name
    const noGateWords = text.replace(/^- \*\*gate\*\*.*\n(\s+.*\n)*/m, '');
    expect(wordFaults(noGateWords)).toContainEqual(expect.stringMatching(/^src\/cli\/commands\/gate\.ts says "gate"/));
  });
});
