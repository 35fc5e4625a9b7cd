// Threshold curves for `npm run eval:memory -- --curves`: for each embedder, how many distinct
// problems of eval/memory-hard.json a duplicate / systemic / auto-link threshold would wrongly
// join, against how many true duplicates and restatements it would catch. The thresholds in
// src/memory/thresholds.ts were chosen from these tables (docs/memory.md).
//   false merges(t)      = pairs of distinct memories of the same type with cosine ≥ t
//   true merges(t)       = near-identical duplicates whose cosine to their original is ≥ t
//   false promotions(t)  = memories (failures, stored in order within one week) with ≥ 2 earlier
//                          distinct failures at cosine ≥ t: each would be promoted to systemic
//   true promotions(t)   = restated failures whose two restatements and original all meet t
//   auto-links(t)        = distinct pairs linked; same-cluster share = pairs sharing an error
const f3 = (x) => x.toFixed(3);
const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

export async function printCurves(memory, data, choices) {
  for (const choice of choices) {
    const embedder = await memory.selectEmbedder({ HELIX_EMBEDDER: choice }, () => {});
    if (choice !== 'lexical' && embedder.id.startsWith('lexical')) continue;
    const text = (x) => memory.memoryText(x.trigger, x.resolution);
    const mem = await embedder.embed(data.memories.map(text));
    const byId = new Map(data.memories.map((m, i) => [m.id, mem[i]]));
    const dups = await embedder.embed(data.duplicates.map(text));
    const rest = await embedder.embed(data.restatements.map(text));
    const pairs = [];
    for (let i = 0; i < mem.length; i++) {
      for (let j = i + 1; j < mem.length; j++) {
        const [a, b] = [data.memories[i], data.memories[j]];
        pairs.push({ cos: dot(mem[i], mem[j]), sameType: a.type === b.type, cluster: a.id.split('.')[0] === b.id.split('.')[0] });
      }
    }
    const dupCos = data.duplicates.map((d, i) => dot(dups[i], byId.get(d.of)));
    const groups = new Map();
    data.restatements.forEach((r, i) => groups.set(r.of, [...(groups.get(r.of) ?? []), rest[i]]));
    // The weakest link of each restated failure: the 3rd occurrence needs both earlier ones.
    const restMin = [...groups].map(([of, vs]) => Math.min(dot(vs[1], byId.get(of)), dot(vs[1], vs[0])));
    const failures = data.memories.map((m, i) => [m, mem[i]]).filter(([m]) => m.type === 'failure');
    const promotions = (t) =>
      failures.filter(([, v], i) => failures.slice(0, i).filter(([, w]) => dot(v, w) >= t).length >= 2).length;
    const t = memory.thresholdsFor(embedder.id);
    const distinct = pairs.map((p) => p.cos).sort((a, b) => b - a);
    console.log(`\ncurves for ${embedder.id} (active: duplicate ${t.duplicate}, systemic ${t.systemic}, auto-link ${t.autoLink})`);
    console.log(`  distinct pairs: max ${f3(distinct[0])}, 10th ${f3(distinct[9])}, 100th ${f3(distinct[99])}; same-cluster max ${f3(Math.max(...pairs.filter((p) => p.cluster).map((p) => p.cos)))}`);
    console.log(`  duplicates → original: min ${f3(Math.min(...dupCos))}, median ${f3(dupCos.sort()[dupCos.length >> 1])}; restatements (weakest link) min ${f3(Math.min(...restMin))}, max ${f3(Math.max(...restMin))}\n`);
    console.log('| threshold | false merges | true merges | false promotions | true promotions | auto-links (same cluster) |');
    console.log('|---|---|---|---|---|---|');
    for (let x = 0.3; x <= 1.0001; x += 0.05) {
      const over = pairs.filter((p) => p.cos >= x);
      console.log(`| ${x.toFixed(2)} | ${over.filter((p) => p.sameType).length} | ${dupCos.filter((c) => c >= x).length}/${dupCos.length} | ${promotions(x)} | ${restMin.filter((c) => c >= x).length}/${restMin.length} | ${over.length} (${over.filter((p) => p.cluster).length}) |`);
    }
  }
}
