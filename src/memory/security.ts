// What a memory may not carry. Memories are pasted into later agent prompts, and failure memories
// are built automatically from agent output — the path an attacker would use. So secrets would
// leak, instructions would hijack the next agent, and invisible or control characters would hide
// either. Pure check; returns the category for `security: <category>`.
//
// Text is normalised before the instruction patterns run (NFKC folds full-width letters; markdown
// emphasis and line breaks are flattened), so `**Ignore** all the\nprevious instructions` or
// `ＩＧＮＯＲＥ previous instructions` cannot slip past by formatting alone.

const SECRET_VALUE = String.raw`["']?(?![$<{%])(?=[^\s"']*[A-Za-z])[^\s"']{8,}`;

const SECRET_PATTERNS: RegExp[] = [
  // private keys: RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP (`… PRIVATE KEY BLOCK-----`)
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, // AWS access key id (long-term, temporary)
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}\b/,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/, // GitLab
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b/, // OpenAI / Anthropic keys
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/, // Stripe
  /\bnpm_[A-Za-z0-9]{36}\b/, // npm
  /\bhf_[A-Za-z0-9]{30,}\b/, // Hugging Face
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/, // Slack tokens
  /hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/, // Slack webhooks
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API key
  /\bya29\.[0-9A-Za-z_-]{20,}/, // Google OAuth access token
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, // JWT
  /\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*/i, // Authorization: Bearer …
  // key = value where the key names a secret, also inside longer names: aws_secret_access_key=…,
  // DB_PASSWORD: …, "client_secret": "…", AccountKey=… (a value that references a variable is fine)
  new RegExp(
    String.raw`\b[\w.-]*(?:secret|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|account[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|session[_-]?token|client[_-]?secret)["']?\s*[:=]\s*${SECRET_VALUE}`,
    'i',
  ),
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]{3,}@/i, // credentials inside a URL
];

const INSTRUCTION_NOUNS = String.raw`(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|constraints|context|messages?|orders|polic(?:y|ies)|programming)`;
const TARGETS = String.raw`(?:all|any|every|previous|prior|above|earlier|preceding|former|original|initial|system|your|safety)`;

/** Run on the flattened text (one line, no markdown emphasis). */
const INJECTION_PATTERNS: RegExp[] = [
  // ignore / disregard / forget … (all the) previous / above / your … instructions
  new RegExp(String.raw`\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?=(?:\S+\s+){0,4}?${TARGETS}\b)(?:\S+\s+){0,5}?${INSTRUCTION_NOUNS}\b`, 'i'),
  // disregard the above / ignore everything above / forget everything before this
  /\b(?:ignore|disregard|forget)\s+(?:(?:all|everything|anything)\s+)?(?:(?:of\s+)?(?:the|that|this|what(?:ever)?\s+(?:is|was|came))\s+)?(?:above|before\s+this|prior\s+to\s+this|said\s+(?:above|before))\b/i,
  /\bforget\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|you\s+know)\b/i,
  /\byou\s+are\s+now\s+(?:a|an|in|the|my|no\s+longer)\b/i,
  /\bfrom\s+now\s+on,?\s+(?:you|the\s+(?:assistant|agent|model))\s+(?:will|must|are|should|shall)\b/i,
  /\bpretend\s+(?:that\s+)?you\s+(?:are|have)\b/i,
  /\b(?:reveal|print|show|output|repeat|leak)\s+(?:your|the)\s+(?:system|hidden|initial)\s+(?:prompt|instructions|message)/i,
  /\b(?:new|updated|revised|real|actual|override)\s+(?:instructions|policy|rules|system\s+prompt)\s*:/i,
  /\b(?:system|developer)\s*(?:prompt|message|note|override|notice)?\s*:\s*(?:new|updated|override|policy|instructions?|rules|ignore|you\s+(?:are|must|will|should))\b/i,
  /\bdo\s+not\s+(?:tell|inform|alert|notify)\s+the\s+(?:user|human|operator)\b/i,
  /\bwithout\s+(?:telling|informing|alerting)\s+the\s+(?:user|human|operator)\b/i,
  /\b(?:developer|god|dan|jailbreak)\s+mode\s+(?:is\s+)?(?:enabled|on|activated)\b/i,
];

/** Run on the text with its lines and punctuation: role labels and chat-template markers. */
const MARKUP_PATTERNS: RegExp[] = [
  // a role label opening a line, as a chat transcript would have it: `SYSTEM: …`, `### System:`
  /(?:^|\n)[ \t]*(?:#{1,6}[ \t]*|\[|<)?(?:SYSTEM|ASSISTANT|DEVELOPER)(?:\]|>)?[ \t]*:/,
  /(?:^|\n)[ \t]*#{1,6}[ \t]*(?:system|assistant|developer)[ \t]*:/i,
  /<\/?\s*(?:system|assistant|developer)\s*>/i,
  /<\|im_start\|>|<\|im_end\|>|<<\/?SYS>>|\[\/?INST\]/,
];

// Zero-width and bidirectional-control characters: invisible in a terminal, present to the model.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
// C0 controls but tab and line breaks, DEL, and C1: escape sequences that would act on a terminal
// showing the memory, and bytes no real note contains.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

export type SecurityCategory = 'secret' | 'prompt-injection' | 'zero-width' | 'control-character';

/** Folds what formatting could hide behind: full-width letters, markdown emphasis, line breaks. */
function flatten(text: string): string {
  return text.normalize('NFKC').replace(/[*_`~>#|]+/g, ' ').replace(/\s+/g, ' ');
}

export function securityIssue(...texts: string[]): SecurityCategory | undefined {
  for (const text of texts) {
    if (INVISIBLE.test(text)) return 'zero-width';
    if (CONTROL.test(text)) return 'control-character';
    const folded = text.normalize('NFKC');
    if (SECRET_PATTERNS.some((p) => p.test(folded))) return 'secret';
    const flat = flatten(text);
    if (MARKUP_PATTERNS.some((p) => p.test(folded)) || INJECTION_PATTERNS.some((p) => p.test(flat))) return 'prompt-injection';
  }
  return undefined;
}
