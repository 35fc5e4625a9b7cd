import { describe, expect, it } from 'vitest';
import { added, testStore } from './test-store.js';

async function three() {
  const t = testStore();
  const a = await added(t.store, 'Kubernetes pod in CrashLoopBackOff', 'Init container for migrations');
  const b = await added(t.store, 'Readiness probe fails during startup', 'Initial delay', { type: 'pattern' });
  const c = await added(t.store, 'Deploy pipeline times out waiting for rollout', 'Raise the rollout timeout');
  return { ...t, a, b, c };
}

describe('edges', () => {
  it('adding the same triple again adds to its weight', async () => {
    const { store, a, b } = await three();
    expect(store.edge(a, b, 'causes')).toEqual({ from: a, to: b, rel_type: 'causes', weight: 1 });
    expect(store.edge(a, b, 'causes', 0.5)).toEqual({ from: a, to: b, rel_type: 'causes', weight: 1.5 });
    expect(store.edges()).toHaveLength(1);
  });

  it('lists by name (either end) and by relation; rejects unknown relations and names', async () => {
    const { store, a, b, c } = await three();
    store.edge(a, b, 'causes');
    store.edge(c, a, 'co_occurs');
    expect(store.edges({ name: a }).map((e) => e.rel_type).sort()).toEqual(['causes', 'co_occurs']);
    expect(store.edges({ rel: 'co_occurs' }).map((e) => [e.from, e.to])).toEqual([[c, a]]);
    expect(() => store.edge(a, b, 'likes')).toThrow(/--rel must be one of solves, co_occurs, similar, causes/);
    expect(() => store.edge(a, 'missing-name', 'causes')).toThrow(/not found: missing-name/);
  });

  it('connected walks edges in both directions within the hop limit, with hops and path weight', async () => {
    const { store, a, b, c } = await three();
    store.edge(a, b, 'causes', 2);
    store.edge(c, b, 'co_occurs', 0.5);
    expect(store.connected(a, 1).map((m) => [m.name, m._hops, m._path_weight])).toEqual([[b, 1, 2]]);
    expect(store.connected(a, 2).map((m) => [m.name, m._hops, m._path_weight])).toEqual([[b, 1, 2], [c, 2, 1]]);
  });

  it('decay-edges halves edges whose both ends are dormant', async () => {
    const { store, clock, a, b, c } = await three();
    store.edge(a, b, 'causes', 2);
    store.edge(b, c, 'causes', 2);
    clock.advanceDays(61);
    store.feedback([c], 1); // c is active again
    expect(store.decayEdges()).toEqual({ edges_decayed: 1, threshold_days: 60 });
    expect(store.edges().map((e) => [e.from, e.weight])).toEqual([[b, 2], [a, 1]]);
  });

  it('suggest-edges proposes memories at or above the auto-link cosine, pattern → failure as solves', async () => {
    const { store } = testStore();
    const failure = await added(store, 'Jest hangs because setInterval in src/poller.ts keeps node alive', 'Stop the poller in afterEach');
    const pattern = await added(store, 'Testing src/poller.ts under jest with setInterval', 'Use fake timers and stop the poller in afterEach', { type: 'pattern' });
    await added(store, 'Terraform wants to replace the database', 'prevent_destroy');
    const suggestions = await store.suggestEdges(failure);
    expect(suggestions.map((s) => [s.from, s.to, s.rel_type])).toEqual([[pattern, failure, 'solves']]);
    expect(suggestions[0]!.confidence).toBeGreaterThanOrEqual(0.4);
    expect(suggestions[0]!.reason).toMatch(/^similarity 0\.\d+ ≥ 0\.4$/);
    await expect(store.suggestEdges('missing')).rejects.toThrow(/not found/);
  });
});
