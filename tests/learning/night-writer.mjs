// A second process writing to the memory store during a `helix run --jobs 3` (issue #39's
// across-slots scenario): opens the store through the built library, waits for the go marker,
// then steps one memory's helped counter as fast as it can until the stop marker appears (the
// halfway marker after its first HALFWAY steps), stores `lessons` lessons of its own and prints
// how many steps it gave and what became of each lesson.
import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as wait } from 'node:timers/promises';

const HALFWAY = 50;
const [dbPath, name, lessons, goFile, halfwayFile, stopFile, distIndex] = process.argv.slice(2);
const { openMemoryStore } = await import(distIndex);
const store = openMemoryStore({ dbPath, env: { HELIX_EMBEDDER: 'lexical' }, warn: () => undefined });
while (!existsSync(goFile)) await wait(2);
let steps = 0;
while (!existsSync(stopFile)) {
  store.feedback([name], 1);
  if (++steps === HALFWAY) writeFileSync(halfwayFile, 'half');
}
const WORDS = 'amber basil cedar dune ember fjord garnet harbor iris jasper kelp lotus maple nectar onyx pepper quartz raven saffron thistle umber violet willow yarrow'.split(' ');
const stored = [];
for (let i = 0; i < Number(lessons); i++) {
  const r = await store.store({ type: 'pattern', trigger: `Night writer lesson ${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} number ${i}`, resolution: `Keep ${WORDS[i % WORDS.length]} apart from ${WORDS[(i * 5 + 1) % WORDS.length]} (${i})`, source: 'night-writer' });
  stored.push(r.status);
}
store.close();
process.stdout.write(JSON.stringify({ steps, stored }));
