#!/usr/bin/env node
// The structure figures the architecture notes quote: the largest files, the largest functions and
// methods in src/ (by lines, functions measured with the TypeScript compiler's own parse) and the
// file and line count of each src/ folder. tests/supervisor/layers.test.ts holds src/ to its measure
// (`measure`: no function over 80 lines). Usage: node scripts/largest-functions.mjs [count=5] [root=src]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** A readable name for a function-like node: `Class.method`, `name`, or the variable it is bound to. */
function nameOf(node) {
  const own = node.name && ts.isIdentifier(node.name) ? node.name.text : undefined;
  if (ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node)) {
    const owner = node.parent && ts.isClassLike(node.parent) && node.parent.name ? node.parent.name.text : '?';
    return `${owner}.${own ?? 'constructor'}`;
  }
  if (own) return own;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return undefined;
}

/**
 * Every source file under `root` with its lines, every named function and method with its lines
 * (first to last line of its declaration), and each folder's file and line count.
 */
export function measure(root) {
  const functions = [];
  const files = [];
  const folders = new Map();
  for (const file of sourceFiles(root)) {
    const folder = relative(root, file).split('/').slice(0, -1).join('/') || '.';
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    files.push({ file, lines });
    const seen = folders.get(folder) ?? { files: 0, lines: 0 };
    folders.set(folder, { files: seen.files + 1, lines: seen.lines + lines });
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const name = nameOf(node);
        if (name) {
          const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          functions.push({ name, file, line: start + 1, lines: end - start + 1 });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  files.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  functions.sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name));
  return { files, functions, folders };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const count = Number(process.argv[2] ?? 5);
  const root = process.argv[3] ?? 'src';
  const { files, functions, folders } = measure(root);
  console.log(`largest files in ${root}/ (lines):`);
  for (const f of files.slice(0, count)) console.log(`  ${String(f.lines).padStart(4)}  ${f.file}`);
  console.log(`largest functions in ${root}/ (lines):`);
  for (const f of functions.slice(0, count)) console.log(`  ${String(f.lines).padStart(4)}  ${f.name}  (${f.file}:${f.line})`);
  console.log(`files and lines per folder of ${root}/:`);
  for (const [folder, n] of [...folders].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`  ${String(n.files).padStart(4)} ${String(n.lines).padStart(6)}  ${folder}`);
}
