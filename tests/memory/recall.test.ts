import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { memoryText } from '../../src/memory/index.js';
import { added, testStore } from './test-store.js';

const LOCKED = ['SQLite database is locked when two workers write at once', 'Enable WAL and a busy timeout'] as const;

describe('recall', () => {
  it('a query equal to trigger + resolution has relevance 1 and, fresh and unrated, score 0.85', async () => {
    const { store } = testStore();
    await added(store, ...LOCKED);
    await added(store, 'Docker build cannot find dist folder in context', 'Build inside the image with a multi-stage build');
    const [top] = await store.recall(memoryText(...LOCKED));
    expect(top).toMatchObject({ name: 'sqlite-database-is-locked-when-two-workers-write-a', _relevance: 1, _recency: 1, _score: 0.85 });
  });

  it('finds a memory by an exact keyword with the fallback embedder (never [] for want of a model)', async () => {
    const { store } = testStore();
    await added(store, 'Prisma migrate dev reports drift detected', 'Create a new migration instead of editing applied ones');
    await added(store, 'Docker build cannot find dist folder in context', 'Build inside the image');
    const found = await store.recall('prisma');
    expect(found.map((m) => m.name)).toEqual(['prisma-migrate-dev-reports-drift-detected']);
  });

  it('ranks a memory that helped above an equally relevant one that failed', async () => {
    const { store } = testStore();
    const good = await added(store, 'Flaky test on CI because of locale number formatting', 'Set LC_ALL in the test env');
    const bad = await added(store, 'Flaky test on CI because of timezone date formatting', 'Set TZ in the test env', { type: 'pattern' });
    store.feedback([good], 2);
    store.feedback([bad], -2);
    const names = (await store.recall('flaky test on CI formatting')).map((m) => m.name);
    expect(names.indexOf(good)).toBeLessThan(names.indexOf(bad));
  });

  it('ranks a recently used memory above a stale one of equal relevance and effectiveness', async () => {
    const { store, clock } = testStore();
    const stale = await added(store, 'Redis connection refused in unit tests on port 6379', 'Use fakeredis');
    clock.advanceDays(21);
    const fresh = await added(store, 'Redis connection refused in integration tests on port 6379', 'Start redis with docker compose', { type: 'pattern' });
    const found = await store.recall('redis connection refused tests port 6379');
    expect(found.map((m) => m.name)).toEqual([fresh, stale]);
    expect(found[1]!._recency).toBe(0.125);
  });

  it('filters by type, honours the limit and the minimum effectiveness', async () => {
    const { store } = testStore();
    const names: string[] = [];
    for (const n of ['one', 'two', 'three', 'four']) names.push(await added(store, `Build fails on step ${n} of the pipeline`, `Fix step ${n}`));
    const pattern = await added(store, 'Build pipeline steps should be cached', 'Cache node_modules between steps', { type: 'pattern' });
    expect((await store.recall('build pipeline step', { type: 'pattern' })).map((m) => m.name)).toEqual([pattern]);
    expect(await store.recall('build pipeline step', { limit: 2 })).toHaveLength(2);
    store.feedback([names[0]!], -1);
    const confident = await store.recall('build pipeline step', { minEffectiveness: 0.5, limit: 10 });
    expect(confident.map((m) => m.name)).not.toContain(names[0]);
    expect(confident).toHaveLength(4);
  });

  it('--expand adds 1-hop neighbours marked _via_edge', async () => {
    const { store } = testStore();
    const hit = await added(store, 'Kubernetes pod in CrashLoopBackOff during migrations', 'Run migrations in an init container');
    const linked = await added(store, 'Readiness probe configuration', 'Give the probe an initial delay', { type: 'pattern' });
    store.edge(hit, linked, 'causes');
    const plain = await store.recall('CrashLoopBackOff', { limit: 1 });
    expect(plain.map((m) => m.name)).toEqual([hit]);
    const expanded = await store.recall('CrashLoopBackOff', { limit: 1, expand: true });
    expect(expanded.map((m) => [m.name, m._via_edge])).toEqual([[hit, undefined], [linked, hit]]);
  });

  it('never changes counters or last_used', async () => {
    const { store } = testStore();
    const name = await added(store, ...LOCKED);
    const before = store.get(name);
    await store.recall('database locked');
    await store.recall('database locked', { expand: true });
    expect(store.get(name)).toEqual(before);
  });

  it('sees memories another connection stored after this one loaded its index', async () => {
    const { store, dbPath } = testStore();
    await added(store, ...LOCKED);
    expect((await store.recall('terraform')).map((m) => m.name)).not.toContain('terraform-plan-wants-to-replace-the-database');
    const { openMemoryStore, lexicalEmbedder } = await import('../../src/memory/index.js');
    const other = openMemoryStore({ dbPath, env: {}, embedder: lexicalEmbedder });
    await other.store({ trigger: 'Terraform plan wants to replace the database', resolution: 'Add prevent_destroy' });
    other.close();
    expect((await store.recall('terraform replace database'))[0]!.name).toBe('terraform-plan-wants-to-replace-the-database');
  });

  it('a fresh store reads the packed vector snapshot the last one left, and ignores it once stale', async () => {
    const { store, dbPath } = testStore();
    await added(store, ...LOCKED);
    store.close();
    const db = new Database(dbPath, { readonly: true });
    const stamp = () => [
      (db.prepare('SELECT value FROM store_generation').get() as { value: number }).value,
      (db.prepare('SELECT generation FROM vector_cache').get() as { generation: number }).generation,
    ];
    const [generation, cached] = stamp();
    expect(cached).toBe(generation);
    const { openMemoryStore, lexicalEmbedder } = await import('../../src/memory/index.js');
    const open = () => openMemoryStore({ dbPath, env: {}, embedder: lexicalEmbedder, now: () => new Date('2026-03-01T12:00:00Z') });
    const writer = open();
    await writer.store({ trigger: 'Terraform plan wants to replace the database', resolution: 'Add prevent_destroy' });
    // The writer has not closed, so the snapshot is now one generation behind.
    expect(stamp()[0]).toBeGreaterThan(stamp()[1]!);
    const reader = open();
    expect((await reader.recall('terraform replace database'))[0]!.name).toBe('terraform-plan-wants-to-replace-the-database');
    expect((await reader.recall(memoryText(...LOCKED)))[0]!._relevance).toBe(1);
    reader.close();
    writer.close();
    db.close();
  });

  it('a snapshot of an empty store does not stop the next process from storing (it used to: the unpacked index could not grow)', async () => {
    const { store, dbPath } = testStore();
    expect(await store.recall('anything at all')).toEqual([]);
    store.close();
    const { openMemoryStore, lexicalEmbedder } = await import('../../src/memory/index.js');
    const open = () => openMemoryStore({ dbPath, env: {}, embedder: lexicalEmbedder, now: () => new Date('2026-03-01T12:00:00Z') });
    const next = open();
    const name = await added(next, ...LOCKED);
    await added(next, 'Terraform plan wants to replace the database', 'Add prevent_destroy');
    next.close();
    const reader = open();
    expect((await reader.recall(memoryText(...LOCKED)))[0]).toMatchObject({ name, _relevance: 1 });
    reader.close();
  });
});
