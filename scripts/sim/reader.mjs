// How the simulation's stand-in agent reads a prompt and decides what to try (pure functions;
// scripts/sim/agent.mjs does the effects). See agent.mjs for the policy in words.
import { draw, pick } from './world.mjs';

/**
 * The memory block of a prompt as entries: name, confidence (0–1; 0.5 when unproven), the text
 * before and after ` -> `, and whether it is one of helix's failure records.
 */
export function readMemoryBlock(prompt) {
  const entries = [];
  for (const line of prompt.split('\n')) {
    const end = /\(memory: ([^)\s]+)\)(?: \[[^\]]*\])?\s*$/.exec(line);
    if (!end) continue;
    const tag = /^(?:WARNING: )?\[(\d+)%\]|^(?:WARNING: )?\[unproven\]/.exec(line);
    if (!tag) continue;
    const confidence = tag[1] === undefined ? 0.5 : Number(tag[1]) / 100;
    const body = line.slice(tag[0].length, end.index).trim();
    const arrow = body.indexOf(' -> ');
    const trigger = arrow >= 0 ? body.slice(0, arrow) : body;
    const resolution = arrow >= 0 ? body.slice(arrow + 4) : '';
    const failureRecord = line.startsWith('WARNING: ') || /verification failed|execution_failed/.test(trigger);
    entries.push({ name: end[1], confidence, trigger, resolution, failureRecord });
  }
  return entries;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The values a text recommends for the family's setting (`setting = v`, `setting to v`), not
 * counting `setting = v is rejected`.
 */
export function recommended(family, text) {
  const found = [];
  const pattern = new RegExp(`\\b${escape(family.setting)}\\s*(?:=|to)\\s*([a-z0-9-]+)(?! is rejected)`, 'g');
  for (const m of text.matchAll(pattern)) if (family.values.includes(m[1]) && !found.includes(m[1])) found.push(m[1]);
  return found;
}

/** The values a text says were rejected (`setting = v is rejected`, the check's words). */
export function rejected(family, text) {
  const pattern = new RegExp(`\\b${escape(family.setting)} = ([a-z0-9-]+) is rejected`, 'g');
  return [...text.matchAll(pattern)].map((m) => m[1]).filter((v) => family.values.includes(v));
}

/**
 * What the block says about the setting: candidates (value, confidence, memory, block order) and
 * the values some memory says were rejected. A failure record's trigger is what went wrong, so it
 * recommends nothing; its resolution (the agent's LEARNED line) may.
 */
export function evidence(family, entries) {
  const candidates = [];
  const against = new Set();
  entries.forEach((entry, order) => {
    const positive = entry.failureRecord ? entry.resolution : `${entry.trigger} ${entry.resolution}`;
    for (const value of recommended(family, positive)) candidates.push({ value, confidence: entry.confidence, memory: entry.name, order });
    for (const value of rejected(family, `${entry.trigger} ${entry.resolution}`)) against.add(value);
  });
  return { candidates, against };
}

/** Below this a memory's tag reads as disproven (helix itself prunes below 0.25). */
export const TRUST_FLOOR = 0.25;

/**
 * The agent's decision: follow a memory, or investigate, or guess. Pure.
 * A candidate is trusted at TRUST_FLOOR or above, unless a failure record says its value was
 * rejected and the candidate is not proven since (above 50%). The most confident trusted
 * candidate wins; ties go to the one shown first.
 */
export function decide({ family, entries, seed, id, attempt, pDiscover, truth }) {
  const { candidates, against } = evidence(family, entries);
  const trusted = candidates
    .filter((c) => c.confidence >= TRUST_FLOOR && (!against.has(c.value) || c.confidence > 0.5))
    .sort((a, b) => b.confidence - a.confidence || a.order - b.order);
  if (trusted.length > 0) return { source: 'memory', value: trusted[0].value, memory: trusted[0].memory, confidence: trusted[0].confidence };
  if (draw(seed, id, attempt, 'discover') < pDiscover) return { source: 'investigation', value: truth };
  // Evidence against a value: rejected by a failure record, or recommended only by disproven memories.
  const ruledOut = new Set([...against, ...candidates.filter((c) => c.confidence < TRUST_FLOOR).map((c) => c.value)]);
  const open = family.values.filter((v) => !ruledOut.has(v));
  return { source: 'guess', value: pick(open.length ? open : family.values, seed, id, attempt, 'guess') };
}
