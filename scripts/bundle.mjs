#!/usr/bin/env node
// Part of `npm run build` (and so of `npm install`'s prepare and `npm test`), after tsc: bundles
// the commands bin/helix serves without commander — src/cli/plain.ts, that is plain `tracker
// ready|blocked`, `status` and `next`, and every module they reach — into one ES module,
// dist/fast/plain.js (and `helix gate`, src/cli/plain-gate.ts, into dist/fast/gate.js), with its source map (dist/fast/plain.js.map, sources and their text
// included). Node's ES module loader resolves, reads and compiles each file of dist/ on its own,
// and for those reads that was most of their start-up (docs/design-notes.md, "Fast start").
// Everything else still runs from tsc's dist/ as before. And src/version.ts alone as CommonJS,
// dist/fast/version.cjs, for bin/helix (a CommonJS file: see there) to answer `--version` with.
//
// What stays outside the bundle, imported from dist/ at run time so there is one copy of it:
//   - src/errors.ts: HelixError is tested with instanceof across the two (bin/helix reports a
//     failure of the plain path with dist/cli/main.js's reportError);
//   - the memory store and the agent runner, which load SQLite and execa: they are imported
//     lazily, only when a project has a memory store or a ddx to ask;
//   - src/supervisor/shell/git.ts, the one module that runs git, which loads execa for an
//     attempt's reads (the gate's worktrees are git's too; the plain reads never reach it);
//   - src/supervisor/shell/gate-worktree.ts, the gate's verification in a worktree: the gate
//     imports it only for a bead with a verify command, and from dist/ that import stays lazy —
//     bundled, its imports of the agent runner would be hoisted and load execa for every gate.
// The bundle may import nothing else: no npm package (an esbuild ES module hoists a package's
// import to the top, so it would load on every call) — the build fails if it does.
//
// A module's `import.meta.url` is rewritten to the URL its tsc output has (dist/<same path>.js),
// so `new URL('../package.json', import.meta.url)` and the like find the same files.
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const OUT_DIR = join(ROOT, 'dist', 'fast');
const ENTRY = join(SRC, 'cli', 'plain.ts');

/** Source modules loaded from dist/ instead of being bundled (see above). */
const SHARED = ['errors.ts', 'memory/index.ts', 'agents/run-agent.ts', 'supervisor/shell/git.ts', 'supervisor/shell/gate-worktree.ts'].map((file) => join(SRC, file));

/** The tsc output of a source file, as a specifier relative to the bundle. */
const distSpecifier = (source) => {
  const target = join(ROOT, 'dist', relative(SRC, source)).replace(/\.ts$/, '.js');
  const path = relative(OUT_DIR, target).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
};

const shareDist = {
  name: 'share-dist',
  setup(b) {
    // helix's imports name the .js file tsc writes; the source is the .ts beside it
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer.startsWith(SRC)) return undefined;
      const source = resolve(dirname(args.importer), args.path).replace(/\.js$/, '.ts');
      return SHARED.includes(source) ? { path: distSpecifier(source), external: true } : undefined;
    });
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const base = b.initialOptions.format === 'cjs' ? "require('node:url').pathToFileURL(__filename)" : 'import.meta.url';
      const url = `new URL(${JSON.stringify(distSpecifier(args.path))}, ${base}).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

const result = await build({
  entryPoints: [ENTRY],
  outfile: join(OUT_DIR, 'plain.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  sourcesContent: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [shareDist],
});

// `helix gate` on its own: it loads the agent runner (execa), which the plain reads must not pay for
const gate = await build({
  entryPoints: [join(SRC, 'cli', 'plain-gate.ts')],
  outfile: join(OUT_DIR, 'gate.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  sourcesContent: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [shareDist],
});

const version = await build({
  entryPoints: [join(SRC, 'version.ts')],
  outfile: join(OUT_DIR, 'version.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  sourcesContent: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [shareDist],
});

for (const output of [...Object.values(result.metafile.outputs), ...Object.values(gate.metafile.outputs), ...Object.values(version.metafile.outputs)]) {
  const foreign = output.entryPoint ? output.imports.filter((i) => !i.path.startsWith('node:') && !i.path.startsWith('.')) : [];
  if (foreign.length) {
    process.stderr.write(`bundle: ${output.entryPoint} imports ${foreign.map((i) => i.path).join(', ')}; only node: modules and the shared dist/ files may be imported (scripts/bundle.mjs)\n`);
    process.exit(1);
  }
}
