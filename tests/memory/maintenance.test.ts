import { describe, expect, it } from 'vitest';
import { added, testStore } from './test-store.js';

describe('decay', () => {
  it('halves helped and failed of dormant, little-used memories, keeping the ratio', async () => {
    const { store, clock } = testStore();
    const dormant = await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    const busy = await added(store, 'Prisma migrate reports schema drift', 'New migration');
    store.feedback([dormant], 1);
    store.feedback([dormant], -0.5);
    store.feedback([busy], 3);
    clock.advanceDays(31);
    expect(store.decay()).toEqual({ decayed: 1, threshold_days: 30, min_uses: 2 });
    expect(store.get(dormant)).toMatchObject({ helped: 0.5, failed: 0.25, effectiveness: 0.667 });
    expect(store.get(busy)).toMatchObject({ helped: 3 });
  });

  it('leaves memories used within the window alone', async () => {
    const { store, clock } = testStore();
    const name = await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    store.feedback([name], 1);
    clock.advanceDays(29);
    expect(store.decay().decayed).toBe(0);
  });
});

describe('prune', () => {
  it('removes effectiveness strictly below 0.25 with at least 3 uses; keeps 0.25 exactly and under-used ones', async () => {
    const { store } = testStore();
    const below = await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    const exactly = await added(store, 'Prisma migrate reports schema drift', 'New migration');
    const fewUses = await added(store, 'Redis connection refused on port 6379', 'fakeredis');
    const other = await added(store, 'Terraform wants to replace the database', 'prevent_destroy', { type: 'pattern' });
    store.feedback([below], -3); // 0/3
    store.feedback([exactly], 1);
    store.feedback([exactly], -3); // 1/4 = 0.25
    store.feedback([fewUses], -2); // 0/2
    store.edge(below, other, 'causes');
    expect(store.prune()).toEqual({ pruned: 1, remaining: 3, removed: [below] });
    expect(store.get(below)).toBeUndefined();
    expect(store.edges()).toEqual([]);
    expect(store.get(exactly)).toBeDefined();
  });
});

describe('consolidate', () => {
  it('merges near-duplicates: the survivor takes the counts and edges', async () => {
    const { store } = testStore();
    const first = await added(store, 'Jest test times out because setInterval in src/poller.ts keeps the event loop alive', 'Use fake timers and stop the poller');
    const target = await added(store, 'Unrelated memory about terraform plans', 'Read the plan first', { type: 'pattern' });
    // Similar enough for consolidate at 0.5, not for a merge at store time (0.85).
    const second = await added(store, 'Jest hangs: the poller interval in src/poller.ts keeps the event loop alive in tests', 'Fake timers, stop the poller');
    store.feedback([first], 1);
    store.feedback([second], 2);
    store.feedback([second], -1);
    store.edge(first, target, 'causes', 2);
    const result = await store.consolidate(0.5);
    expect(result).toMatchObject({ merged: 1, remaining: 2, pairs: [{ kept: expect.any(String), archived: expect.any(String) }] });
    // `second` has more uses, so it survives with both memories' counts and the re-pointed edge.
    expect(store.get(first)).toBeUndefined();
    expect(store.get(second)).toMatchObject({ helped: 3, failed: 1 });
    expect(store.edges({ name: second }).find((e) => e.to === target)).toMatchObject({ rel_type: 'causes', weight: 2 });
  });

  it('does nothing when no pair reaches the threshold', async () => {
    const { store } = testStore();
    await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    await added(store, 'Prisma migrate reports schema drift', 'New migration');
    expect(await store.consolidate()).toEqual({ merged: 0, remaining: 2, pairs: [] });
  });
});
