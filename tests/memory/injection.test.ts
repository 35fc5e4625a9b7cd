import { describe, expect, it } from 'vitest';
import { PROMPT_HEADER } from '../../src/memory/injection.js';
import { added, testStore } from './test-store.js';

describe('inject', () => {
  it('renders [NN%] for memories with feedback and [unproven] without, systemic first as WARNING', async () => {
    const { store } = testStore();
    const proven = await added(store, 'Flaky CI test because of locale number formatting', 'Set LC_ALL=C.UTF-8 in the test env');
    const fresh = await added(store, 'CI test fails on date formatting in another timezone', 'Set TZ=UTC in the test env', { type: 'pattern' });
    const systemic = await added(store, 'Repeated: CI tests flaky from environment differences', 'Pin the CI env in one place', { type: 'systemic' });
    store.feedback([proven], 2);
    store.feedback([proven], -1);
    const result = await store.inject({ objective: 'fix the flaky CI test formatting', limit: 5 });
    expect(result.injected.sort()).toEqual([fresh, proven, systemic].sort());
    const lines = result.prompt.split('\n');
    expect(lines[0]).toBe(PROMPT_HEADER);
    expect(lines[1]).toBe(`WARNING: [unproven] Repeated: CI tests flaky from environment differences -> Pin the CI env in one place (memory: ${systemic}) [seen 3 times: consider an architectural fix]`);
    expect(lines).toContain(`[67%] Flaky CI test because of locale number formatting -> Set LC_ALL=C.UTF-8 in the test env (memory: ${proven})`);
    expect(lines).toContain(`[unproven] CI test fails on date formatting in another timezone -> Set TZ=UTC in the test env (memory: ${fresh})`);
  });

  it('injectEntries hands over the same block as data: the header, one entry per memory in prompt order, names best first', async () => {
    const { store } = testStore();
    await added(store, 'Flaky CI test because of locale number formatting', 'Set LC_ALL=C.UTF-8 in the test env');
    const procedure = await added(store, 'CI release steps for the flaky test job', 'build it\nship it', { tags: ['procedure'] });
    const systemic = await added(store, 'Repeated: CI tests flaky from environment differences', 'Pin the CI env in one place', { type: 'systemic' });
    const task = { objective: 'fix the flaky CI test formatting', limit: 5 };
    const rendered = await store.inject(task);
    const data = await store.injectEntries(task);
    expect(data.injected).toEqual(rendered.injected);
    expect([data.header, ...data.entries.map((e) => e.text)].join('\n')).toBe(rendered.prompt);
    expect(data.entries[0]!.name).toBe(systemic);
    expect(data.entries.find((e) => e.name === procedure)?.text.split('\n')).toHaveLength(3);
    expect(data.entries.map((e) => e.name).sort()).toEqual([...rendered.injected].sort());
  });

  it('surfaces a memory that mentions a file the task touches even when the objective shares no words (dual query)', async () => {
    const { store } = testStore();
    const auth = await added(store, 'Circular import between src/auth.py and models/user.py at startup', 'Move shared types to models/types.py');
    await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    const semanticOnly = await store.inject({ objective: 'add endpoints for profile pictures' });
    expect(semanticOnly.injected).not.toContain(auth);
    const withFiles = await store.inject({ objective: 'add endpoints for profile pictures', files: ['./src/auth.py', 'README.md'] });
    expect(withFiles.injected).toContain(auth);
  });

  it('cuts to the limit and returns an empty prompt when nothing is relevant', async () => {
    const { store } = testStore();
    for (const step of ['lint', 'test', 'build', 'deploy']) await added(store, `Pipeline step ${step} fails on the main branch`, `Rerun ${step}`);
    expect((await store.inject({ objective: 'pipeline step fails on main branch', limit: 2 })).injected).toHaveLength(2);
    expect(await store.inject({ objective: 'quantum chromodynamics lattice' })).toEqual({ prompt: '', injected: [] });
  });

  it('renders a procedure memory as numbered steps', async () => {
    const { store } = testStore();
    const name = await added(store, 'Database migration tests fail on a fresh checkout', 'Check fixtures in conftest.py\nInitialise the test DB\nRun migrations with --check', { tags: ['procedure'] });
    const { prompt } = await store.inject({ objective: 'database migration tests fail' });
    expect(prompt).toContain(`[unproven] Database migration tests fail on a fresh checkout ->\n  1. Check fixtures in conftest.py\n  2. Initialise the test DB\n  3. Run migrations with --check (memory: ${name})`);
  });
});

describe('batch-inject', () => {
  it('never gives one memory to two tasks of a batch', async () => {
    const { store } = testStore();
    for (const n of ['one', 'two', 'three', 'four', 'five']) await added(store, `Auth token refresh fails in case ${n}`, `Handle case ${n}`);
    const result = await store.batchInject([{ objective: 'auth token refresh fails' }, { objective: 'auth token refresh fails' }], 3);
    const [first, second] = result.results;
    expect(first!.names).toHaveLength(3);
    expect(second!.names).toHaveLength(2);
    expect(first!.names.filter((n) => second!.names.includes(n))).toEqual([]);
    expect(result.total_unique).toBe(5);
    expect(first!.insights[0]).toMatch(/^\[unproven\] Auth token refresh fails in case/);
  });
});

describe('strategic-recall', () => {
  it('is all zeros and {} on an empty store', async () => {
    const { store } = testStore();
    expect(await store.strategicRecall('anything at all')).toEqual({
      insights: [],
      summary: {
        total_recalled: 0,
        total_in_system: 0,
        avg_relevance: 0,
        avg_effectiveness: 0,
        proven_count: 0,
        risky_count: 0,
        untested_count: 0,
        coverage_ratio: 0,
        tag_distribution: {},
      },
    });
  });

  it('summarises proven, risky and untested insights with tag counts and coverage', async () => {
    const { store } = testStore();
    const proven = await added(store, 'Payments webhook processed twice after retry', 'Store processed event ids', { tags: ['payments'] });
    const risky = await added(store, 'Payments refund job times out on big batches', 'Split the batch', { tags: ['payments', 'jobs'] });
    const untested = await added(store, 'Payments currency rounding off by a cent', 'Integer cents', { tags: ['money'] });
    await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    store.feedback([proven], 3);
    store.feedback([risky], 1);
    store.feedback([risky], -2);
    const { insights, summary } = await store.strategicRecall('payments webhook refund rounding');
    expect(insights.map((i) => i.name).sort()).toEqual([proven, risky, untested].sort());
    expect(summary).toMatchObject({
      total_recalled: 3,
      total_in_system: 4,
      avg_effectiveness: 0.611,
      proven_count: 1,
      risky_count: 1,
      untested_count: 1,
      coverage_ratio: 0.75,
      tag_distribution: { payments: 2, jobs: 1, money: 1 },
    });
  });
});

describe('chunk', () => {
  it('stores a successful approach as a pattern, strengthens it the second time, skips failures', async () => {
    const { store } = testStore();
    const first = await store.chunk({ task: 'Add pagination to the orders API', outcome: 'success: merged', approach: 'Cursor on (created_at, id)' });
    expect(first).toMatchObject({ status: 'added', name: 'task-add-pagination-to-the-orders-api' });
    expect(store.get(first.name)).toMatchObject({ type: 'pattern', trigger: 'Task: Add pagination to the orders API', resolution: 'Approach that worked: Cursor on (created_at, id)', source: 'chunk' });
    const again = await store.chunk({ task: 'Add pagination to the orders API', outcome: 'Success', approach: 'Cursor on (created_at, id)' });
    expect(again).toMatchObject({ status: 'strengthened', name: first.name });
    expect(store.get(first.name)!.helped).toBe(1);
    expect(await store.chunk({ task: 'Add pagination to the orders API', outcome: 'blocked: tests fail', approach: 'x' })).toMatchObject({ status: 'skipped' });
  });

  it('a different approach to the same task is a pattern of its own: the old one gets no credit for it', async () => {
    const { store } = testStore();
    const task = 'Repair the payment webhook retries';
    const old = await store.chunk({ task, outcome: 'success', approach: 'set retry_policy = linear-backoff in config/payments.toml' });
    // One word apart: near-duplicates by cosine, which a plain store would merge.
    const fresh = await store.chunk({ task, outcome: 'success', approach: 'set retry_policy = exponential-jitter in config/payments.toml' });
    expect(fresh).toMatchObject({ status: 'added' });
    expect(fresh.name).not.toBe(old.name);
    expect(store.get(old.name)).toMatchObject({ helped: 0, resolution: 'Approach that worked: set retry_policy = linear-backoff in config/payments.toml' });
    expect(store.get(fresh.name)).toMatchObject({ helped: 0, resolution: 'Approach that worked: set retry_policy = exponential-jitter in config/payments.toml' });
    // The same approach again strengthens the pattern that records it, not its nearest neighbour.
    expect(await store.chunk({ task, outcome: 'success', approach: 'Set retry_policy = exponential-jitter in config/payments.toml.' })).toMatchObject({ status: 'strengthened', name: fresh.name });
    expect(await store.chunk({ task, outcome: 'success', approach: 'set retry_policy = linear-backoff in config/payments.toml' })).toMatchObject({ status: 'strengthened', name: old.name });
    expect([store.get(old.name)!.helped, store.get(fresh.name)!.helped]).toEqual([1, 1]);
  });

  it('does not strengthen a pattern the same success already credited (one success counts once)', async () => {
    const { store } = testStore();
    const task = 'Add pagination to the orders API';
    const first = await store.chunk({ task, outcome: 'success', approach: 'Cursor on (created_at, id)' });
    const again = await store.chunk({ task, outcome: 'success', approach: 'Cursor on (created_at, id)', credited: [first.name] });
    expect(again).toEqual({ status: 'skipped', name: first.name, reason: 'this success already credited it' });
    expect(store.get(first.name)!.helped).toBe(0);
    // Credit for other memories does not stop it.
    expect(await store.chunk({ task, outcome: 'success', approach: 'Cursor on (created_at, id)', credited: ['something-else'] })).toMatchObject({ status: 'strengthened' });
  });
});

describe('health', () => {
  it('needs attention before the loop closes and is HEALTHY after feedback', async () => {
    const { store } = testStore();
    expect(await store.health()).toMatchObject({ status: 'NEEDS_ATTENTION', total_memories: 0, issues: ['No memories yet'] });
    const name = await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    expect(await store.health()).toMatchObject({ status: 'NEEDS_ATTENTION', issues: ['No feedback recorded - learning loop not closed'] });
    store.feedbackVerify({ taskId: 't', verifyPassed: true, injected: [name] });
    expect(await store.health()).toEqual({
      status: 'HEALTHY',
      total_memories: 1,
      total_edges: 0,
      by_type: { failure: 1, pattern: 0, systemic: 0 },
      edge_types: { solves: 0, co_occurs: 0, similar: 0, causes: 0 },
      effectiveness: 1,
      with_feedback: 1,
      embedder: 'lexical-v1-384',
      issues: [],
    });
  });
});

describe('similar-recent', () => {
  it('returns recent similar failures, most similar first, with _similarity', async () => {
    const { store, clock } = testStore();
    const old = await added(store, 'npm ci fails with ERESOLVE peer conflict on react', 'overrides');
    clock.advanceDays(8);
    const recent = await added(store, 'npm ci ERESOLVE peer dependency conflict after react upgrade', 'overrides for react');
    await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    const found = await store.similarRecent('npm ci ERESOLVE peer dependency conflict');
    expect(found.map((m) => m.name)).toEqual([recent]);
    expect(found[0]!._similarity).toBeGreaterThanOrEqual(0.45);
    expect((await store.similarRecent('npm ci ERESOLVE peer dependency conflict', { days: 30 })).map((m) => m.name).sort()).toEqual([old, recent].sort());
  });
});
