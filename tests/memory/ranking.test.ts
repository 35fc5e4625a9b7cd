// The pieces of #13's ranking, each on its own: the code-aware tokeniser, path matching, rank
// fusion, the schema upgrade that indexes existing memories, and recall using each signal.
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { keywordQueryTerms, queryTerms, searchTerms } from '../../src/memory/search-terms.js';
import { filePatterns, pathMatch, queryPaths } from '../../src/memory/files.js';
import { fuse, ranks } from '../../src/memory/fusion.js';
import { openMemoryStore, lexicalEmbedder, memoryText } from '../../src/memory/index.js';
import { LEXICAL_THRESHOLDS, USE_LITE_THRESHOLDS } from '../../src/memory/thresholds.js';
import { added, testStore } from './test-store.js';

describe('code-aware tokens', () => {
  it('splits paths into segments and the file name into stem and extension', () => {
    expect(searchTerms('services/billing/internal/tax/client.go')).toEqual(['services', 'billing', 'internal', 'tax', 'client', 'go']);
    expect(searchTerms('see db/migrations/0042_add_invoice_currency.sql')).toEqual(['see', 'db', 'migrations', '0042_add_invoice_currency', '0042', 'add', 'invoice', 'currency', 'sql']);
  });

  it('keeps camelCase and snake_case identifiers whole and adds their parts', () => {
    expect(searchTerms('useInvoices')).toEqual(['useinvoices', 'use', 'invoices']);
    expect(searchTerms('parseHTTPResponse')).toEqual(['parsehttpresponse', 'parse', 'http', 'response']);
    expect(searchTerms('busy_timeout')).toEqual(['busy_timeout', 'busy', 'timeout']);
  });

  it('keeps error codes whole: a code matches only itself', () => {
    expect(searchTerms('TS2307 E0502 ECONNREFUSED')).toEqual(['ts2307', 'e0502', 'econnrefused']);
    expect(searchTerms('ERR_REQUIRE_ESM')).toEqual(['err_require_esm', 'err', 'require', 'esm']);
  });

  it('query terms drop stop words, single characters and repeats', () => {
    expect(queryTerms("it's the API's fault: the api")).toEqual(['api', 'fault']);
  });

  it('the BM25 query searches a compound the store knows whole, and its parts only when it does not', () => {
    const known = (whole: string) => ['typescript', 'busy_timeout'].includes(whole);
    expect(keywordQueryTerms('TypeScript and busy_timeout', known)).toEqual(['typescript', 'busy_timeout']);
    expect(keywordQueryTerms('staleTime of useInvoices', known)).toEqual(['staletime', 'stale', 'time', 'useinvoices', 'invoices']);
    expect(keywordQueryTerms('TypeScript and busy_timeout', () => false)).toEqual(queryTerms('TypeScript and busy_timeout'));
  });
});

describe('paths', () => {
  it('finds extension-less build files as file patterns', () => {
    expect(filePatterns('fixed worker/Dockerfile and the Makefile, not the docs')).toEqual(['worker/Dockerfile', 'Makefile']);
  });

  it('a path query is a path even without an extension', () => {
    expect(queryPaths('api/Dockerfile')).toEqual(['api/Dockerfile']);
    expect(queryPaths('./web/src/lib/api.ts')).toEqual(['web/src/lib/api.ts']);
    expect(queryPaths('why does the api time out')).toEqual([]);
  });

  it('matches whole trailing segments only: a suffix names the file, a shared file name alone does not', () => {
    expect(pathMatch('api/app/main.py', 'api/app/main.py')).toBe(3);
    expect(pathMatch('app/main.py', 'api/app/main.py')).toBe(2);
    expect(pathMatch('main.py', 'api/app/main.py')).toBe(1);
    expect(pathMatch('worker/main.py', 'api/app/main.py')).toBe(0);
    expect(pathMatch('api/Dockerfile', 'worker/Dockerfile')).toBe(0);
  });
});

describe('rank fusion', () => {
  it('first place on every active list is 1; a list that found nothing does not count', () => {
    const fused = fuse([{ weight: 1, ids: [7, 8] }, { weight: 1, ids: [] }, { weight: 0.5, ids: [7] }], 3);
    expect(fused.get(7)).toBe(1);
    expect(fused.get(8)).toBeCloseTo((1 / 5) / (1 / 4 + 0.5 / 4));
  });

  it('a list adds what the others missed without outranking their first place', () => {
    const fused = fuse([{ weight: 1, ids: [1, 2, 3] }, { weight: 0.15, ids: [9, 1] }], 3);
    expect([...fused].sort((a, b) => b[1] - a[1]).map(([id]) => id)).toEqual([1, 2, 3, 9]);
  });

  it('a scored list shares by score: near-equal look-alikes stay near-equal, and any match keeps the floor', () => {
    const fused = fuse([{ weight: 1, ids: [1, 2, 3], scores: [10, 9.5, 0.001] }], 3, 0.5, 0.25);
    expect(fused.get(1)).toBe(1);
    expect(fused.get(2)).toBeCloseTo(Math.sqrt(0.95));
    expect(fused.get(3)).toBe(0.25);
  });

  it('tied entries share the best rank of their group', () => {
    expect([...ranks({ weight: 1, ids: [4, 5, 6], ties: [3, 3, 1] })]).toEqual([[4, 1], [5, 1], [6, 3]]);
  });
});

describe('recall uses the right signal', () => {
  // BM25's idf needs a few documents: in a store of two, every term looks equally common.
  async function withOthers(store: ReturnType<typeof testStore>['store']): Promise<void> {
    await added(store, 'Terraform plan wants to replace the production database', 'Add prevent_destroy');
    await added(store, 'Flaky snapshot test on the first day of each month', 'Freeze the clock in the test');
    await added(store, 'Redis memory grows until evictions start', 'Give every rate-limit key a TTL');
  }

  it('a path query finds the memory naming that file before a shorter one that only shares its words', async () => {
    const { store } = testStore();
    await withOthers(store);
    const named = await added(
      store,
      'Startup crashes after the settings refactor touched api/app/main.py',
      'The lifespan handler imported the database module before the settings were loaded; load settings first, then open the pool, and cover startup with a test client test.',
    );
    await added(store, 'Main API app py-spy: the api app main loop is blocked', 'Profile the app');
    expect((await store.recall('api/app/main.py'))[0]!.name).toBe(named);
  });

  it('an error code matches as a whole, not as the words it is made of', async () => {
    const { store } = testStore();
    await withOthers(store);
    const code = await added(
      store,
      'Error [ERR_REQUIRE_ESM] from scripts/seed.js since node-fetch 3',
      'node-fetch 3 is published as an ES module only; use the global fetch of Node 18 and drop the dependency, or rename the script to .mjs.',
    );
    await added(store, 'require of an ESM package: err in the loader', 'Use import()');
    expect((await store.recall('ERR_REQUIRE_ESM'))[0]!.name).toBe(code);
  });

  it('a compound word of the query counts once: "TypeScript" does not outweigh the words of the answer', async () => {
    // eval/memory-hard.json n04: the index holds TypeScript as typescript, type and script; searched
    // as all three, the note that merely says "types" and "TypeScript" ranked above the answer.
    const { store } = testStore();
    await withOthers(store);
    const answer = await added(
      store,
      "TS2307: Cannot find module './utils/format' after switching tsconfig.json moduleResolution to NodeNext in packages/core",
      "NodeNext follows Node's ESM rules: relative imports need the .js extension even in .ts source. Rewrote imports to './utils/format.js'.",
    );
    await added(
      store,
      "TS2307 Cannot find module '@acme/ui' or its corresponding type declarations in web/ although the package builds",
      'packages/ui/package.json had an exports map without a types condition, so TypeScript with bundler resolution could not find the .d.ts. Added "types" first in each exports entry.',
    );
    const query = 'Cannot find module for a relative import since we changed how TypeScript resolves modules, though the file is right there';
    expect((await store.recall(query))[0]!.name).toBe(answer);
  });

  it('the hashed lexical vectors are not part of the fusion (measured: they only added noise)', () => {
    expect(LEXICAL_THRESHOLDS.semanticWeight).toBe(0);
    expect(USE_LITE_THRESHOLDS.semanticWeight).toBeGreaterThan(0);
  });

  it('an exact text still has relevance 1', async () => {
    const { store } = testStore();
    await added(store, 'SQLite database is locked when two workers write', 'Enable WAL and a busy timeout');
    const [top] = await store.recall(memoryText('SQLite database is locked when two workers write', 'Enable WAL and a busy timeout'));
    expect(top!._relevance).toBe(1);
  });
});

describe('schema upgrade', () => {
  it('migration 3 indexes the memories of a version-2 store for code-aware search and its build files', async () => {
    const { store, dbPath } = testStore();
    await added(store, 'TS2307 in web/src/lib/api.ts after moving worker/Dockerfile', 'Fix the useInvoices import');
    store.close();
    // Turn the file back into a version-2 store: the plain-word FTS table, no memory_search, nothing of 4.
    const db = new Database(dbPath);
    db.exec(`DROP TABLE memory_search; DELETE FROM schema_version WHERE version >= 3; DELETE FROM memory_files;
      ALTER TABLE memories DROP COLUMN repeats; ALTER TABLE memories DROP COLUMN session_uses; DROP TABLE memory_archive; DROP TABLE session_memories;
      CREATE VIRTUAL TABLE memories_fts USING fts5(trigger, resolution, content='memories', content_rowid='id', tokenize='porter unicode61');`);
    db.close();
    const reopened = openMemoryStore({ dbPath, env: {}, embedder: lexicalEmbedder, warn: () => undefined });
    expect((await reopened.recall('useinvoices')).length).toBe(1);
    expect((await reopened.recall('worker/Dockerfile')).length).toBe(1);
    reopened.close();
    const check = new Database(dbPath, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'memories_fts'").all()).toEqual([]);
    expect(check.prepare('SELECT pattern FROM memory_files ORDER BY pattern').all()).toEqual([{ pattern: 'web/src/lib/api.ts' }, { pattern: 'worker/Dockerfile' }]);
    check.close();
  });
});
