// The relevance gate and relevance-first ranking (issue #25) on a store built from
// eval/memory-gate.json: look-alikes that share generic words and path segments, stored over 20
// days. `npm run eval:gate` measures the same on all of it; here a few cases that each fail when
// the mechanism is off (gate 0, or recency not earned by the match).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchTerms } from '../../src/memory/match.js';
import { testStore } from './test-store.js';

interface GateMemory { id: string; type: string; trigger: string; resolution: string }
const data = JSON.parse(readFileSync(join(import.meta.dirname, '../../eval/memory-gate.json'), 'utf8')) as { memories: GateMemory[] };

describe('the relevance gate', () => {
  const { store, clock } = testStore({ now: '2026-02-02T09:00:00.000Z' });
  const idOf = new Map<string, string>();
  beforeAll(async () => {
    for (const m of data.memories) {
      const r = await store.store(m);
      idOf.set(r.name, m.id);
      clock.advanceDays(0.5);
    }
  });
  const ids = (names: string[]) => names.map((n) => idOf.get(n));

  it('a task no memory is about injects nothing, however many generic words it shares', async () => {
    for (const objective of ['Show a toast when an order is saved', 'Add a notes field to the admin order form', 'Update the company address in the email footer']) {
      expect((await store.inject({ objective })).injected, objective).toEqual([]);
    }
  });

  it('an edit of a file no memory is about injects nothing, though its folders are in many memories', async () => {
    for (const file of ['api/app/routers/store_info.py', 'web/src/components/Footer.tsx']) {
      expect((await store.inject({ objective: file, files: [file] })).injected, file).toEqual([]);
    }
  });

  it('a task with a relevant memory still gets it, and an edit gets the memories naming its file', async () => {
    expect(ids((await store.inject({ objective: 'Price changes made in the admin do not show on the product page' })).injected)).toContain('cache.price');
    expect(ids((await store.inject({ objective: 'Sign in with Google loses the session on the way back to the shop' })).injected)).toContain('auth.samesite');
    const file = 'api/app/routers/webhooks.py';
    expect(ids((await store.inject({ objective: file, files: [file] })).injected)).toEqual(expect.arrayContaining(['wh.secret', 'wh.rawbody']));
  });

  it('recall reports the absolute match next to the relative relevance, and --min-match filters by it', async () => {
    const [first] = await store.recall('Show a toast when an order is saved', { limit: 1 });
    expect(first!._relevance).toBeGreaterThan(0.9); // first place of the fused ranking: relative
    expect(first!._match).toBeLessThan(0.4); // but it answers little of the query
    expect(await store.recall('Show a toast when an order is saved', { minMatch: 0.4 })).toEqual([]);
  });

  it('a strong on-topic memory from three weeks ago ranks above this week\'s weak matches', async () => {
    // wh.idempotent (Stripe redeliveries) was stored 19 days before the query; orders.refund shares
    // "charged"/"payment" words and is 3 days old. With plain recency (0.2·recency) it came first.
    const top = await store.recall('Customers are charged twice when Stripe sends the same payment event again', { limit: 3 });
    expect(ids(top.map((m) => m.name))[0]).toBe('wh.idempotent');
  });

  it('a path gives its file name as words, not its folders', () => {
    expect(matchTerms('api/app/routers/webhooks.py', ['api/app/routers/webhooks.py'])).toEqual(['webhooks']);
    expect(matchTerms('Fix the retries in src/payments/webhook.ts', [])).toEqual(['fix', 'retries', 'webhook']);
  });

  it('time passes: a query days later sees the same matches (the match has no clock)', async () => {
    clock.advanceDays(30);
    expect((await store.inject({ objective: 'Show a toast when an order is saved' })).injected).toEqual([]);
  });
});
