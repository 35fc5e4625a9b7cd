// A second process writing to the memory store during a `helix run --jobs 3` (issue #39's
// across-slots scenario): opens the store through the built library, waits for the go marker,
// gives `count` feedback steps to one memory and stores `count` lessons of its own, writing the
// halfway marker after half of them, then prints what it wrote.
import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as wait } from 'node:timers/promises';

const [dbPath, name, count, goFile, halfwayFile, distIndex] = process.argv.slice(2);
const { openMemoryStore } = await import(distIndex);
const store = openMemoryStore({ dbPath, env: { HELIX_EMBEDDER: 'lexical' }, warn: () => undefined });
while (!existsSync(goFile)) await wait(2);
const WORDS = 'amber basil cedar dune ember fjord garnet harbor iris jasper kelp lotus maple nectar onyx pepper quartz raven saffron thistle umber violet willow yarrow'.split(' ');
const stored = [];
for (let i = 0; i < Number(count); i++) {
  if (i === Math.floor(Number(count) / 2)) writeFileSync(halfwayFile, 'half');
  store.feedback([name], 1);
  const r = await store.store({ type: 'pattern', trigger: `Night writer lesson ${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} number ${i}`, resolution: `Keep ${WORDS[i % WORDS.length]} apart from ${WORDS[(i * 5 + 1) % WORDS.length]} (${i})`, source: 'night-writer' });
  stored.push(r.status);
}
store.close();
process.stdout.write(JSON.stringify(stored));
