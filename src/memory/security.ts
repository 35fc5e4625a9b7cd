// What a memory may not carry: it is pasted into future agent prompts, so secrets would leak,
// instructions would hijack the agent, and invisible characters would hide either. Pure check;
// returns the category for `security: <category>`.

const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\bAKIA[0-9A-Z]{16}\b/, // AWS access key id
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}\b/,
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b/, // OpenAI / Anthropic keys
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/, // Slack
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API key
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, // JWT
  /\b(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)\s*[:=]\s*["']?[^\s"']{8,}/i,
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]{3,}@/i, // credentials inside a URL
];

const INJECTION_PATTERNS: RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|preceding)\s+(?:instructions|prompts?|rules|directions|context)/i,
  /\byou\s+are\s+now\s+(?:a|an|in)\b/i,
  /\b(?:reveal|print|show|output)\s+(?:your|the)\s+system\s+prompt/i,
  /\bnew\s+instructions\s*:/i,
  /<\/?\s*(?:system|assistant)\s*>/i,
  /\bdo\s+not\s+(?:tell|inform)\s+the\s+user\b/i,
];

// Zero-width and bidirectional-control characters: invisible in a terminal, present to the model.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

export type SecurityCategory = 'secret' | 'prompt-injection' | 'zero-width';

export function securityIssue(...texts: string[]): SecurityCategory | undefined {
  for (const text of texts) {
    if (INVISIBLE.test(text)) return 'zero-width';
    if (SECRET_PATTERNS.some((p) => p.test(text))) return 'secret';
    if (INJECTION_PATTERNS.some((p) => p.test(text))) return 'prompt-injection';
  }
  return undefined;
}
