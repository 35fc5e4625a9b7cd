// Silence out of sample (issue #39): the synthetic sets' held-out splits have 7 beads nothing fits
// each, so one bead is 0.14 of silence. This set is larger and built from the real trackers by a
// rule fixed before it was measured (docs/memory.md states it):
//   - the history splits at the creation of the middle bead, T (as scripts/lib/real-beads.mjs);
//     the store holds the lessons closed before T (every closed bead: trigger its title,
//     resolution its notes or else its description, as eval-memory-disambiguation.mjs stores them);
//   - a bead filed at T or later FITS the lessons whose title is a near-duplicate of its own
//     (most words shared: NEAR_SHARE) — of those, when a detail of its title tells them apart,
//     the ones holding it (the disambiguation rule);
//   - NOTHING FITS a bead when no lesson's title shares a distinctive word of its title (a word at
//     most 2% of the tracker's titles hold, at least 3) and no lesson names a distinctive path or
//     identifier its text names (real-beads.mjs's namedThings and limit);
//   - beads in between (related to some lesson, a near-duplicate of none) are left out: their gold
//     cannot be told by a rule;
//   - each class splits by time: the first half of its beads (by creation) is the tune half.
// Beads go through the run's memory port (scripts/lib/gate-eval.mjs: precision, silence, recall).
import { DISTINCTIVE_MIN, DISTINCTIVE_SHARE, namedThings, ownText } from './lib/real-beads.mjs';
import { NEAR_SHARE, lessonMemories, titleWords } from './eval-memory-disambiguation.mjs';

/** The items (fits / nothing fits) and the lessons of one tracker (beads sorted by creation). */
export function silenceSet(beads, { stopwords, stem, filePatterns, namedIdentifiers }) {
  const T = beads[Math.floor(beads.length / 2)].created_at;
  const stems = new Map(beads.map((b) => [b.id, new Set([...titleWords(b.title, stopwords)].map(stem))]));
  const limit = Math.max(DISTINCTIVE_MIN, Math.ceil(DISTINCTIVE_SHARE * beads.length));
  const frequency = new Map();
  for (const s of stems.values()) for (const w of s) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const helpers = { filePatterns, namedIdentifiers };
  const named = new Map(beads.map((b) => [b.id, namedThings(`${ownText(b)}\n${typeof b.notes === 'string' ? b.notes : ''}`, helpers)]));
  const thingFrequency = new Map();
  for (const things of named.values()) for (const t of things) thingFrequency.set(t, (thingFrequency.get(t) ?? 0) + 1);

  const lessons = beads.filter((b) => b.status === 'closed' && typeof b.updated_at === 'string' && b.updated_at < T);
  const tasks = beads.filter((b) => b.created_at >= T);
  const items = [];
  let between = 0;
  for (const task of tasks) {
    const own = stems.get(task.id);
    const near = lessons.filter((l) => {
      const other = stems.get(l.id);
      const shared = [...own].filter((s) => other.has(s)).length;
      return own.size > 0 && other.size > 0 && shared >= 2 && shared / Math.min(own.size, other.size) >= NEAR_SHARE;
    });
    if (near.length > 0) {
      const details = [...own].filter((s) => (frequency.get(s) ?? 0) <= limit && near.some((l) => stems.get(l.id).has(s)) && !near.every((l) => stems.get(l.id).has(s)));
      const held = (l) => details.filter((s) => stems.get(l.id).has(s)).length;
      const best = Math.max(...near.map(held));
      items.push({ id: task.id, kind: 'bead', relevant: near.filter((l) => held(l) === best).map((l) => l.id), bead: task, at: task.created_at });
      continue;
    }
    const distinctiveWords = [...own].filter((s) => (frequency.get(s) ?? 0) <= limit);
    const things = [...namedThings(ownText(task), helpers)].filter((t) => (thingFrequency.get(t) ?? 0) <= limit);
    const related = lessons.some((l) => distinctiveWords.some((s) => stems.get(l.id).has(s)) || things.some((t) => named.get(l.id).has(t)));
    if (related) between++;
    else items.push({ id: task.id, kind: 'bead', relevant: [], bead: task, at: task.created_at });
  }
  // Each class split by time on its own, so both halves hold beads of both.
  for (const fits of [true, false]) {
    const own = items.filter((q) => q.relevant.length > 0 === fits);
    own.forEach((item, i) => (item.heldout = i >= Math.ceil(own.length / 2)));
  }
  const lessonIds = new Set(lessons.map((l) => l.id));
  return { T, items, between, memories: lessonMemories(beads).filter((m) => lessonIds.has(m.id)) };
}
