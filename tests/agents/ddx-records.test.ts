// DDx's own records of an attempt (.ddx/executions' attempts.jsonl), as the real binary writes them (docs/ddx.md).
import { describe, expect, it } from 'vitest';
import { attemptsSince } from '../../src/agents/ddx-records.js';

describe("DDx's records of an attempt", () => {
  const jsonl = [
    '{"attempt_id":"20261126T184117-old","bead_id":"hx-1","ts_start":"2026-11-26T18:41:10Z","cost_usd":0.5}',
    '{"attempt_id":"20261126T184117-51d6a675","bead_id":"hx-1","ts_start":"2026-11-26T18:41:18Z","cost_usd":0.001}',
    '{"attempt_id":"other","bead_id":"hx-2","ts_start":"2026-11-26T18:41:19Z"}',
    '{"torn',
  ].join('\n');
  it('counts the attempts at this bead since the call began (DDx writes whole seconds)', () => {
    expect(attemptsSince(jsonl, 'hx-1', new Date('2026-11-26T18:41:18.400Z')).map((a) => a.attempt_id)).toEqual(['20261126T184117-51d6a675']);
  });
});
