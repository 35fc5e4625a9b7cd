// Test worker: one process doing many tracker writes through the library (the real lock and the real
// atomic write), as a cheaper stand-in for one `helix tracker update` process per write.
// Usage: node updater.mjs <tracker dir> <bead id> <count>
// Each write sets `step-<i>: true` on the bead; a lost update would show up as a missing key.
const [dir, id, countText] = process.argv.slice(2);
const { BeadStore, updateBead } = await import(new URL('../../../dist/tracker/index.js', import.meta.url).href);

const store = new BeadStore(dir, { DDX_BEAD_LOCK_TIMEOUT: '60' });
for (let i = 0; i < Number(countText); i++) {
  store.mutate((draft) => updateBead(draft, id, { set: [`step-${i}=true`] }));
}
