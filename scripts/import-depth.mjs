#!/usr/bin/env node
// How deep the shell is: the longest chain of imports that starts at a file of
// src/supervisor/shell/ and stays in it (issue 40's measure: "files deep through the shell") — and,
// beside it, the longest that runs on down through the rest of src/ — counted in files, once with
// every import (type-only ones too: a reader follows a type as far as a call) and once with the
// imports that load at run time. Read with the TypeScript parser, as tests/supervisor/layers.test.ts
// reads imports; src/ has no import loop (that test), so the longest chain is well defined.
// Usage: node scripts/import-depth.mjs [from=src/supervisor/shell] [root=src]
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The relative imports of one source file (static, re-exports, dynamic `import()`, `import('…')` types), each marked type-only or not. */
export function importsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const allTypes = (elements) => elements.length > 0 && elements.every((e) => e.isTypeOnly);
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (!clause.name && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && allTypes(clause.namedBindings.elements)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && allTypes(node.exportClause.elements));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((i) => i.specifier.startsWith('.')).map((i) => ({ file: resolve(dirname(file), i.specifier.replace(/\.js$/, '.ts')), typeOnly: i.typeOnly }));
}

const sourceFiles = (dir) => readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => join(dir, f));

/**
 * The longest import chain that starts at a file under `from` and goes through files under
 * `within` only, as the list of its files (relative to the current folder): `types` true counts
 * type-only imports too.
 */
export function deepestChain({ from, within, types }) {
  const inside = (file) => file.startsWith(resolve(within) + '/');
  const longest = new Map();
  const chainFrom = (file) => {
    const known = longest.get(file);
    if (known) return known;
    longest.set(file, [file]); // a loop (none in src/, layers.test.ts) would stop here, not recurse forever
    let best = [];
    for (const next of importsOf(file)) {
      if ((next.typeOnly && !types) || !inside(next.file)) continue;
      const below = chainFrom(next.file);
      if (below.length > best.length) best = below;
    }
    const chain = [file, ...best];
    longest.set(file, chain);
    return chain;
  };
  let deepest = [];
  for (const file of sourceFiles(resolve(from))) {
    const chain = chainFrom(file);
    if (chain.length > deepest.length) deepest = chain;
  }
  return deepest.map((f) => relative(process.cwd(), f));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const from = process.argv[2] ?? 'src/supervisor/shell';
  const root = process.argv[3] ?? 'src';
  for (const [within, where] of [[from, `through ${from}/`], [root, `from ${from}/ down through ${root}/`]]) {
    for (const types of [true, false]) {
      const chain = deepestChain({ from, within, types });
      console.log(`${chain.length} files deep ${where} ${types ? 'counting type imports' : 'by run-time imports'}:`);
      console.log(`  ${chain.join('\n  → ')}`);
    }
  }
}
