import { describe, expect, it } from 'vitest';
import { verifyVerdicts } from '../../src/memory/feedback.js';
import { added, testStore } from './test-store.js';

describe('feedback', () => {
  it('a positive delta adds to helped, a negative one to failed; names de-duplicated, unknown skipped, last_used set', async () => {
    const { store } = testStore({ now: '2026-03-01T12:00:00.000Z' });
    const a = await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    const b = await added(store, 'Prisma migrate reports schema drift', 'New migration');
    expect(store.feedback([a, a, 'no-such-memory', b], 1.5)).toEqual({ updated: 2, delta: 1.5, names: [a, b] });
    expect(store.feedback([b], -0.5)).toEqual({ updated: 1, delta: -0.5, names: [b] });
    expect(store.get(a)).toMatchObject({ helped: 1.5, failed: 0, effectiveness: 1, last_used: '2026-03-01T12:00:00.000Z' });
    expect(store.get(b)).toMatchObject({ helped: 1.5, failed: 0.5, effectiveness: 0.75 });
  });

  it('refuses a zero delta', async () => {
    const { store } = testStore();
    expect(() => store.feedback(['x'], 0)).toThrow(/--delta/);
  });
});

describe('feedback-verify verdicts (verification gates the agent claim)', () => {
  it.each([
    // passed, injected, utilized, helped, unhelpful
    [true, ['a', 'b'], undefined, ['a', 'b'], []],
    [false, ['a', 'b'], undefined, [], ['a', 'b']],
    [true, ['a', 'b'], ['a'], ['a'], ['b']],
    [false, ['a', 'b'], ['a'], [], ['a']],
    [true, ['a'], ['a', 'never-injected'], ['a'], []],
    [false, ['a'], [], [], []],
  ])('passed=%s injected=%j utilized=%j → helped %j, unhelpful %j', (verifyPassed, injected, utilized, helped, unhelpful) => {
    expect(verifyVerdicts({ verifyPassed, injected, utilized })).toEqual({ helped, unhelpful, left_alone: [] });
  });
});

describe('feedback-verify', () => {
  it('pass then two fails leaves effectiveness 0.333 and reports credited/injected_count', async () => {
    const { store } = testStore();
    const name = await added(store, 'Jest never exits because of an open interval', 'Fake timers');
    expect(store.feedbackVerify({ taskId: 't1', verifyPassed: true, injected: [name, 'gone'] })).toEqual({
      credited: 1,
      task_id: 't1',
      verify_passed: true,
      injected_count: 2,
      helped: [name],
      unhelpful: [],
      left_alone: [],
    });
    const failed = store.feedbackVerify({ taskId: 't2', verifyPassed: false, injected: [name] });
    expect(failed).toMatchObject({ credited: 0, helped: [], unhelpful: [name] });
    store.feedbackVerify({ taskId: 't3', verifyPassed: false, injected: [name] });
    expect(store.get(name)).toMatchObject({ helped: 0.5, failed: 1, effectiveness: 0.333 });
  });

  it('with --utilized, an injected memory the passing agent did not use counts as unhelpful', async () => {
    const { store } = testStore();
    const used = await added(store, 'Jest never exits because of an open interval', 'Fake timers');
    const unused = await added(store, 'Docker build cannot find dist folder', 'Multi-stage build');
    const result = store.feedbackVerify({ taskId: 't', verifyPassed: true, injected: [used, unused], utilized: [used] });
    expect(result).toMatchObject({ credited: 1, helped: [used], unhelpful: [unused] });
    expect(store.get(used)).toMatchObject({ helped: 0.5, failed: 0 });
    expect(store.get(unused)).toMatchObject({ helped: 0, failed: 0.5 });
  });
});
