// The learning simulation's synthetic task families. Each family is a recurring kind of bead (same
// subsystem, same file) with ONE memory that truly helps and several distractors that look at least
// as relevant: a distractor echoes the bead's own words ("<subject> <generic symptom>") while the
// useful memory names the specific cause in other words. Families share no content words, so a
// memory of one family stays below the injection threshold for another family's beads.

export const FAMILIES = [
  {
    key: 'webhook',
    subject: 'payment webhook handler',
    file: 'src/payments/webhook.ts',
    useful: ['Retried payment webhooks charge the customer twice', 'Record each webhook event id and skip ids already processed before charging (an idempotency key)'],
  },
  {
    key: 'csv',
    subject: 'CSV report export',
    file: 'src/reports/csv-export.ts',
    useful: ['Accented names come out garbled when the CSV report is opened', 'Write a UTF-8 byte order mark before the header row so spreadsheet programs detect the encoding'],
  },
  {
    key: 'session',
    subject: 'login session cookie',
    file: 'src/account/session.ts',
    useful: ['Login session cookie vanishes after the identity provider redirect', 'Set SameSite=Lax on the cookie; Strict drops it on the cross-site redirect back from the provider'],
  },
  {
    key: 'thumbnail',
    subject: 'image thumbnail resizer',
    file: 'src/media/thumbnail.ts',
    useful: ['Phone photos get rotated thumbnails from the image resizer', 'Apply the EXIF orientation tag to the pixels before resizing, then strip the tag from the output'],
  },
  {
    key: 'search',
    subject: 'search index rebuild',
    file: 'src/search/indexer.ts',
    useful: ['Documents edited while the search index rebuilds go missing', 'Build into a fresh index, replay the edits logged since the rebuild started, then swap the alias atomically'],
  },
  {
    key: 'digest',
    subject: 'email digest scheduler',
    file: 'src/notify/digest.ts',
    useful: ['The email digest goes out twice around daylight saving changes', 'Schedule digests in UTC and convert to the recipient zone only when rendering the send time'],
  },
  {
    key: 'prices',
    subject: 'product price cache',
    file: 'src/catalog/price-cache.ts',
    useful: ['Old product prices keep showing after an update', 'Delete the price cache key after the database transaction commits, never before it'],
  },
  {
    key: 'locale',
    subject: 'locale translation loader',
    file: 'src/i18n/loader.ts',
    useful: ['Regional locales show raw translation keys', 'Fall back from the regional locale (pt-BR) to its base language (pt) before the default locale'],
  },
];

/** Generic troubles any subsystem can have: plausible, on-topic once prefixed, and no help here. */
export const DISTRACTORS = [
  ['breaks on Windows paths', 'normalise path separators before comparing them'],
  ['is flaky in continuous integration', 'retry the step up to three times in the pipeline'],
  ['fails after a dependency upgrade', 'pin the previous version of the dependency in the lockfile'],
  ['times out under heavy load', 'raise the worker pool size and the request timeout'],
  ['floods the logs with warnings', 'lower the log level to error for this module'],
  ['is slow on large inputs', 'stream the input in chunks instead of loading it whole'],
  ['crashes when the config is empty', 'add defaults for every config key at startup'],
];

const capitalised = (text) => text[0].toUpperCase() + text.slice(1);

/** The memories seeded for a family: its useful one first, then `count` distractors. */
export function familyMemories(family, count) {
  if (count > DISTRACTORS.length) throw new Error(`at most ${DISTRACTORS.length} distractors per family`);
  const [trigger, resolution] = family.useful;
  return {
    useful: { type: 'pattern', trigger, resolution, source: `sim:${family.key}:useful` },
    distractors: DISTRACTORS.slice(0, count).map(([symptom, fix]) => ({
      type: 'pattern',
      trigger: `${capitalised(family.subject)} ${symptom}`,
      resolution: capitalised(fix),
      source: `sim:${family.key}:distractor`,
    })),
  };
}

/** One bead of a family: the subsystem and its file, never the cause (that is what memory knows). */
export function familyBead(family) {
  return {
    title: `Repair the ${family.subject}`,
    description: `The ${family.subject} in ${family.file} is broken for some users; find the cause and repair it.`,
    acceptance: `The ${family.subject} works again and its tests pass.`,
  };
}
