// The learning simulation's world: task families that each need one fact the agent cannot guess.
//
// A family is a recurring kind of bead ("Repair the payment webhook retries") whose fix is one
// setting in one config file of the project (`retry_policy` in config/payments.toml). The check
// (scripts/sim/check.mjs, the bead's `verify` command) accepts exactly one value: the world's
// truth, which the agent never reads. Each family has five documented values, so a guess is
// right one time in five. Half of the families change their truth mid-run (a new release of
// the service), which turns a fact learned earlier into a stale one.
//
// Memories carry facts as text: the right value, plausible wrong ones (seeded "imported notes"),
// and, after the change, stale ones. Nothing here says which memory is right: the agent reads
// the text, and the check decides.

export const FAMILIES = [
  {
    key: 'payments',
    title: 'Repair the payment webhook retries',
    problem: 'Customers get charged twice when the payment provider redelivers a webhook. The retry handling is driven by retry_policy in config/payments.toml.',
    subject: 'payment webhook retries',
    file: 'config/payments.toml',
    setting: 'retry_policy',
    values: ['exponential-jitter', 'linear-backoff', 'fixed-interval', 'immediate', 'circuit-breaker'],
    service: 'the payment provider',
  },
  {
    key: 'reports',
    title: 'Fix garbled accents in the CSV report export',
    problem: "Names like Zoë come out mangled when finance opens the monthly export in a spreadsheet. The export's csv_encoding lives in reports/export.yml.",
    subject: 'CSV report export',
    file: 'reports/export.yml',
    setting: 'csv_encoding',
    values: ['utf-8-bom', 'utf-8', 'latin-1', 'utf-16le', 'windows-1252'],
    service: 'the spreadsheet import',
  },
  {
    key: 'session',
    title: 'Keep users logged in after the identity provider redirect',
    problem: 'The session cookie disappears on the way back from single sign-on. Its same_site attribute comes from server/session.env.',
    subject: 'login session cookie',
    file: 'server/session.env',
    setting: 'same_site',
    values: ['lax', 'strict', 'none', 'lax-allowing-top-level', 'default'],
    service: 'the identity provider',
  },
  {
    key: 'media',
    title: 'Stop phone photos from producing sideways thumbnails',
    problem: 'Portrait pictures uploaded from phones get rotated thumbnails. The resizer reads orientation_mode from media/resizer.ini.',
    subject: 'image thumbnail resizer',
    file: 'media/resizer.ini',
    setting: 'orientation_mode',
    values: ['exif-then-strip', 'exif-keep', 'ignore', 'rotate-auto', 'pixels-only'],
    service: 'the phone camera uploads',
  },
  {
    key: 'search',
    title: 'Documents vanish while the search index rebuilds',
    problem: 'Edits made during a nightly reindex are missing afterwards. The rebuild follows rebuild_strategy in search/indexer.conf.',
    subject: 'search index rebuild',
    file: 'search/indexer.conf',
    setting: 'rebuild_strategy',
    values: ['alias-swap', 'in-place', 'blue-green', 'rolling', 'snapshot-restore'],
    service: 'the search cluster',
  },
  {
    key: 'digest',
    title: 'Weekly digest email sent twice around daylight saving',
    problem: 'Subscribers receive the digest twice when clocks change. Scheduling uses schedule_zone from mail/digest.cfg.',
    subject: 'email digest scheduler',
    file: 'mail/digest.cfg',
    setting: 'schedule_zone',
    values: ['utc-then-render', 'recipient-local', 'server-local', 'fixed-offset', 'floating'],
    service: 'the mail relay',
  },
  {
    key: 'prices',
    title: 'Stale product prices after a catalogue update',
    problem: 'Shoppers keep seeing the old price for minutes after an edit. The price cache clears according to invalidate_on in catalog/cache.properties.',
    subject: 'product price cache',
    file: 'catalog/cache.properties',
    setting: 'invalidate_on',
    values: ['after-commit', 'before-commit', 'ttl-only', 'write-through', 'on-read'],
    service: 'the catalogue replica',
  },
  {
    key: 'locale',
    title: 'Brazilian Portuguese pages show raw translation keys',
    problem: 'pt-BR visitors see message ids instead of text. Missing strings resolve through fallback_chain in i18n/loader.ini.',
    subject: 'locale translation loader',
    file: 'i18n/loader.ini',
    setting: 'fallback_chain',
    values: ['base-then-default', 'default-only', 'regional-only', 'base-only', 'none'],
    service: 'the translation bundle',
  },
];

/** A pure, seeded draw in [0, 1) from any list of parts (FNV-1a over their text, then a mix). */
export function draw(...parts) {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h = Math.imul((h ^ ch.codePointAt(0)) >>> 0, 0x01000193) >>> 0;
  }
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return h / 2 ** 32;
}

/** A seeded choice from a list. */
export function pick(list, ...parts) {
  return list[Math.floor(draw(...parts) * list.length)];
}

/**
 * The world for one seed: every family's truth before and after the change round, and which
 * families change. The truth is a seeded choice of the family's values, so no value is "the
 * right one" by its position in the list.
 */
export function makeWorld(seed, families, changeShare) {
  const truth = {};
  const changed = {};
  const changing = Math.round(families.length * changeShare);
  // Which families change: the first `changing` in a seeded order.
  const order = [...families].sort((a, b) => draw(seed, 'order', a.key) - draw(seed, 'order', b.key));
  for (const family of families) {
    const before = pick(family.values, seed, 'truth', family.key);
    truth[family.key] = before;
    if (order.indexOf(family) < changing) {
      const others = family.values.filter((v) => v !== before);
      changed[family.key] = pick(others, seed, 'changed', family.key);
    }
  }
  return { truth, changed };
}

/** One bead of a family: the symptom, the file and the setting, never the value. */
export function familyBead(family) {
  return {
    title: family.title,
    description: family.problem,
    acceptance: `sim-check ${family.key} passes.`,
  };
}

/** The line the agent writes into the family's config file. */
export const settingLine = (family, value) => `${family.setting} = ${value}`;

// Imported notes (another team's wiki, an old runbook): plausible, on topic, and wrong. Each
// names a wrong value in words as confident as a right one would be.
const MISLEADING_TEMPLATES = [
  (f, v) => [`${cap(f.subject)} broken by ${f.service}`, `Set ${settingLine(f, v)} in ${f.file}; that is what ${f.service} expects.`],
  (f, v) => [`${cap(f.service)} rejects the ${f.subject} settings`, `The fix is ${settingLine(f, v)} (${f.file}).`],
  (f, v) => [`Repairing the ${f.subject}`, `Change ${f.setting} to ${v} in ${f.file} and the check passes.`],
  (f, v) => [`${cap(f.subject)} misbehaves after a release`, `Use ${settingLine(f, v)} in ${f.file}, as the runbook says.`],
  (f, v) => [`Notes from the last ${f.subject} incident`, `We fixed it by switching ${f.setting} to ${v} in ${f.file}.`],
  (f, v) => [`Support ticket about the ${f.subject}`, `Support found that ${f.service} only works with ${settingLine(f, v)}; edit ${f.file}.`],
];

/**
 * `count` seeded notes about a family, each naming a value that is wrong for the whole run
 * (neither the truth before the change nor after it).
 */
export function misleadingMemories(family, world, count, seed) {
  const right = new Set([world.truth[family.key], world.changed[family.key]].filter(Boolean));
  const wrong = family.values.filter((v) => !right.has(v));
  if (count > MISLEADING_TEMPLATES.length) throw new Error(`at most ${MISLEADING_TEMPLATES.length} misleading memories per family`);
  const templates = [...MISLEADING_TEMPLATES].sort((a, b) => draw(seed, 'tpl', family.key, MISLEADING_TEMPLATES.indexOf(a)) - draw(seed, 'tpl', family.key, MISLEADING_TEMPLATES.indexOf(b)));
  return templates.slice(0, count).map((template, i) => {
    const value = wrong[i % wrong.length];
    const [trigger, resolution] = template(family, value);
    return { type: 'pattern', trigger, resolution, source: `import:${family.key}:misleading`, value };
  });
}

// Valid notes about OTHER settings of the same file (what a real store holds next to a fix): they
// name the bead's file, so the relevance gate lets them into its prompt, but they are not about
// the bead's problem and the agent never needs them. None names the family's setting.
const NEIGHBOUR_TEMPLATES = [
  (f) => [`${cap(f.subject)} logs fill the disk`, `Set log_level = warn in ${f.file}; debug logging filled the disk last quarter.`],
  (f) => [`Slow responses from ${f.service} abort the request`, `Raise request_timeout to 30 in ${f.file}; 5 seconds is too short for ${f.service}.`],
  (f) => [`Deploy cannot read the release number of the ${f.subject}`, `Keep the comment header of ${f.file}: the deploy script reads the release number from it.`],
  (f) => [`Duplicate keys after a merge break the ${f.subject}`, `Run make lint-config after editing ${f.file}; it rejects duplicate keys.`],
];

/** `count` valid notes about other settings of the family's file (at most 4). */
export function neighbourMemories(family, count) {
  if (count > NEIGHBOUR_TEMPLATES.length) throw new Error(`at most ${NEIGHBOUR_TEMPLATES.length} neighbouring memories per family`);
  return NEIGHBOUR_TEMPLATES.slice(0, count).map((template) => {
    const [trigger, resolution] = template(family);
    return { type: 'pattern', trigger, resolution, source: `import:${family.key}:neighbour` };
  });
}

const cap = (text) => text[0].toUpperCase() + text.slice(1);
