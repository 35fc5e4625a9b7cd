import { describe, expect, it } from 'vitest';
import { agentForAction, namedAgentMissing, resolveAgentPlan } from '../../src/agents/index.js';
import type { AgentChoiceInput } from '../../src/agents/index.js';

const onPath = (...programs: string[]) => (p: string) => programs.includes(p);
const plan = (input: Partial<AgentChoiceInput>) => resolveAgentPlan({ env: {}, isOnPath: onPath(), ...input });

describe('agent choice (docs/contract/cli.md §3, §8)', () => {
  it('defaults to codex with no alternate when claude is not installed', () => {
    const p = plan({ isOnPath: onPath('codex') });
    expect(p).toEqual({ primary: { agent: 'codex' }, review: { agent: 'codex' } });
    expect(agentForAction(p, 'build')).toEqual({ agent: 'codex', effort: 'medium' });
  });

  it('auto: build, check and polish go to the other agent when it is on PATH; review goes to the agent that did not build', () => {
    const p = plan({ isOnPath: onPath('codex', 'claude') });
    expect(agentForAction(p, 'build').agent).toBe('claude');
    expect(agentForAction(p, 'check').agent).toBe('claude');
    expect(agentForAction(p, 'polish').agent).toBe('claude');
    expect(agentForAction(p, 'align').agent).toBe('codex');
    expect(agentForAction(p, 'design').agent).toBe('codex');
    expect(agentForAction(p, 'review').agent).toBe('codex');
    // and the other way round: claude primary, codex builds, claude reviews
    const q = plan({ env: { HELIX_AGENT: 'claude' }, isOnPath: onPath('codex', 'claude') });
    expect(agentForAction(q, 'build').agent).toBe('codex');
    expect(agentForAction(q, 'review').agent).toBe('claude');
  });

  it('review: with one agent only, that agent (an explicit --agent, HELIX_ALT_AGENT=none, or the other not installed)', () => {
    expect(plan({ explicitAgent: 'claude', isOnPath: onPath('codex', 'claude') }).review.agent).toBe('claude');
    expect(plan({ env: { HELIX_ALT_AGENT: 'none' }, isOnPath: onPath('codex', 'claude') }).review.agent).toBe('codex');
    expect(plan({ env: { HELIX_AGENT: 'claude' }, isOnPath: onPath('claude') }).review.agent).toBe('claude');
    // a named alternate builds, so the primary reviews
    expect(plan({ env: { HELIX_ALT_AGENT: 'claude' } }).review.agent).toBe('codex');
  });

  it('an explicit --agent disables auto', () => {
    const p = plan({ explicitAgent: 'claude', isOnPath: onPath('codex', 'claude') });
    expect(p.alternate).toBeUndefined();
    expect(agentForAction(p, 'build').agent).toBe('claude');
  });

  it('an explicit HELIX_ALT_AGENT name still applies with --agent; none turns it off', () => {
    expect(plan({ explicitAgent: 'codex', env: { HELIX_ALT_AGENT: 'claude' }, isOnPath: onPath('codex', 'claude') }).alternate).toEqual({ agent: 'claude' });
    expect(plan({ env: { HELIX_ALT_AGENT: 'none' }, isOnPath: onPath('codex', 'claude') }).alternate).toBeUndefined();
  });

  it('--model and HELIX_MODEL go only to the primary agent, which then builds (no automatic alternate); effort goes to all', () => {
    const p = plan({ model: 'gpt-5', effort: 'high', isOnPath: onPath('codex', 'claude') });
    expect(p.primary).toEqual({ agent: 'codex', model: 'gpt-5', effort: 'high' });
    expect(agentForAction(p, 'build')).toEqual({ agent: 'codex', model: 'gpt-5', effort: 'high' });
    const q = plan({ env: { HELIX_MODEL: 'm1', HELIX_EFFORT: 'low', HELIX_AGENT: 'claude', HELIX_ALT_AGENT: 'codex' }, isOnPath: onPath('codex', 'claude') });
    expect(q.primary).toEqual({ agent: 'claude', model: 'm1', effort: 'low' });
    expect(q.alternate).toEqual({ agent: 'codex', effort: 'low' });
  });

  it('the flag beats HELIX_MODEL', () => {
    expect(plan({ model: 'flag', env: { HELIX_MODEL: 'env' } }).primary.model).toBe('flag');
  });

  it('--review-agent beats HELIX_REVIEW_AGENT; the primary as reviewer keeps its model', () => {
    expect(plan({ reviewAgent: 'claude', env: { HELIX_REVIEW_AGENT: 'codex' } }).review.agent).toBe('claude');
    expect(plan({ env: { HELIX_REVIEW_AGENT: 'codex' }, model: 'm' }).review).toEqual({ agent: 'codex', model: 'm' });
  });

  it('takes only the effort levels both CLIs know, xhigh included, from --effort or HELIX_EFFORT', () => {
    expect(plan({ effort: 'max' }).primary).toEqual({ agent: 'codex', effort: 'max' });
    expect(plan({ effort: 'xhigh' }).primary).toEqual({ agent: 'codex', effort: 'xhigh' });
    expect(plan({ env: { HELIX_EFFORT: 'low' } }).primary).toEqual({ agent: 'codex', effort: 'low' });
    expect(() => plan({ effort: 'extreme' })).toThrow("helix: invalid effort in --effort: 'extreme' (low|medium|high|xhigh|max)");
    expect(() => plan({ env: { HELIX_EFFORT: 'HIGH' } })).toThrow(/invalid effort in HELIX_EFFORT/);
  });

  it('without --effort or HELIX_EFFORT each action gets its default (docs/contract/bash-interface.md §0.5); experiment gets none', () => {
    const p = plan({ isOnPath: onPath('codex', 'claude') });
    const efforts = Object.fromEntries(
      (['build', 'check', 'align', 'backfill', 'design', 'polish', 'review', 'experiment'] as const).map((a) => [a, agentForAction(p, a).effort]),
    );
    expect(efforts).toEqual({ build: 'medium', check: 'low', align: 'high', backfill: 'high', design: 'high', polish: 'medium', review: 'high', experiment: undefined });
    // a given effort wins over every default
    const q = plan({ effort: 'xhigh', isOnPath: onPath('codex', 'claude') });
    expect(agentForAction(q, 'check').effort).toBe('xhigh');
    expect(agentForAction(q, 'experiment').effort).toBe('xhigh');
  });

  it('rejects a malformed agent name', () => {
    expect(() => plan({ explicitAgent: 'codex; rm -rf /' })).toThrow(/invalid agent name/);
  });

  describe('nothing named: the agents come from what is installed', () => {
    it('only claude installed: claude is the primary, builds and reviews, and --model reaches the builds', () => {
      const p = plan({ model: 'claude-sonnet-4-5', isOnPath: onPath('claude') });
      expect(p.primary).toEqual({ agent: 'claude', model: 'claude-sonnet-4-5' });
      expect(agentForAction(p, 'build')).toEqual({ agent: 'claude', model: 'claude-sonnet-4-5', effort: 'medium' });
      expect(p.review.agent).toBe('claude');
      expect(plan({ isOnPath: onPath('claude') }).fallbacks).toEqual([{ role: 'primary', wanted: 'codex', chosen: 'claude' }]);
    });

    it('only codex installed: codex does everything, nothing falls back', () => {
      const p = plan({ isOnPath: onPath('codex') });
      expect(p).toEqual({ primary: { agent: 'codex' }, review: { agent: 'codex' } });
    });

    it('both installed: codex first; a model whose name says its vendor picks that agent', () => {
      expect(plan({ isOnPath: onPath('codex', 'claude') }).primary.agent).toBe('codex');
      expect(plan({ model: 'claude-opus-4-1', isOnPath: onPath('codex', 'claude') }).primary).toEqual({ agent: 'claude', model: 'claude-opus-4-1' });
      expect(plan({ model: 'sonnet', isOnPath: onPath('codex', 'claude') }).primary.agent).toBe('claude');
      expect(plan({ model: 'gpt-5-codex', isOnPath: onPath('codex', 'claude') }).primary.agent).toBe('codex');
      // a name that says no vendor: codex first
      expect(plan({ model: 'local-7b', isOnPath: onPath('codex', 'claude') }).primary.agent).toBe('codex');
    });

    it('a review agent that is not installed falls back to the builder, and says so', () => {
      const p = plan({ env: { HELIX_REVIEW_AGENT: 'codex' }, isOnPath: onPath('claude') });
      expect(p.review.agent).toBe('claude');
      expect(p.fallbacks).toContainEqual({ role: 'review', wanted: 'codex', chosen: 'claude' });
    });

    it('a named alternate that is not installed is dropped, and says so', () => {
      const p = plan({ env: { HELIX_ALT_AGENT: 'codex' }, isOnPath: onPath('claude') });
      expect(p.alternate).toBeUndefined();
      expect(p.fallbacks).toContainEqual({ role: 'alternate', wanted: 'codex' });
    });

    it('a DDx harness that is not codex or claude is DDx\'s to route: never checked against PATH', () => {
      const p = plan({ explicitAgent: 'agent', env: { HELIX_REVIEW_AGENT: 'opencode' } });
      expect(p.primary.agent).toBe('agent');
      expect(p.review.agent).toBe('opencode');
      expect(p.fallbacks).toBeUndefined();
    });
  });

  it('namedAgentMissing: an agent named for the primary that is not installed', () => {
    expect(namedAgentMissing({ explicitAgent: 'codex', env: {}, isOnPath: onPath('claude') })).toBe('codex');
    expect(namedAgentMissing({ env: { HELIX_AGENT: 'claude' }, isOnPath: onPath('codex') })).toBe('claude');
    expect(namedAgentMissing({ env: {}, isOnPath: onPath() })).toBeUndefined();
    expect(namedAgentMissing({ explicitAgent: 'agent', env: {}, isOnPath: onPath() })).toBeUndefined();
  });
});
