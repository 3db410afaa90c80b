// Secrets never leave the machine: every text we send to a memory bank (retained content and context,
// recall and reflect queries) passes through here first. Covers the usual forms — private-key blocks,
// provider tokens by their fixed prefixes, bearer/basic credentials, `password=`/`api_key: …`
// assignments, `password is …`, and credentials inside URLs. Each pattern is a fixed prefix plus one
// bounded character class (linear time; see the adversarial test).

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

// Tokens recognised by their issuer's prefix.
const PREFIXED_TOKEN =
  /\b(?:sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g;
// `Authorization: Bearer <token>` and friends: the scheme stays, the credential goes.
const AUTH_SCHEME = /\b(Bearer|Basic|Token)[ \t]{1,8}[A-Za-z0-9._~+/=-]{8,}/g;
// `DB_PASSWORD=…`, `"api_key": "…"`, `secret: …` — the name stays, the value goes.
const ASSIGNMENT =
  /\b([A-Za-z0-9_.-]{0,40}?(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth[_-]?key)["']?[ \t]{0,3}[:=][ \t]{0,3}["']?)[^\s"'`,;]{4,}/gi;
// "my password is hunter22", "the token was abcd1234".
const SAID = /\b((?:password|passphrase|pwd|secret|token|api key)[ \t]{1,3}(?:is|was|=)[ \t]{1,3})[^\s"'`,;]{4,}/gi;
// scheme://user:password@host
const URL_CREDENTIAL = /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,64}:)[^\s@/]{1,128}@/gi;

const BEGIN_KEY = "-----BEGIN ";
const PRIVATE_KEY_HEADER = /^-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/;

/** Remove PEM private-key blocks (BEGIN … PRIVATE KEY … END …) with an indexOf walk. */
function redactKeyBlocks(text: string): string {
  let out = "";
  let from = 0;
  for (let at = text.indexOf(BEGIN_KEY); at >= 0; at = text.indexOf(BEGIN_KEY, from)) {
    if (!PRIVATE_KEY_HEADER.test(text.slice(at, at + 80))) {
      out += text.slice(from, at + BEGIN_KEY.length);
      from = at + BEGIN_KEY.length;
      continue;
    }
    const end = text.indexOf("-----END ", at + BEGIN_KEY.length);
    const close = end < 0 ? -1 : text.indexOf("-----", end + 9);
    out += `${text.slice(from, at)}${REDACTED}`;
    from = close < 0 ? text.length : close + 5;
  }
  return out + text.slice(from);
}

/** `text` with every secret in a usual form replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  let out = text.includes(BEGIN_KEY) ? redactKeyBlocks(text) : text;
  out = out.replace(PREFIXED_TOKEN, REDACTED);
  out = out.replace(AUTH_SCHEME, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(URL_CREDENTIAL, (_m, head: string) => `${head}${REDACTED}@`);
  out = out.replace(ASSIGNMENT, (m, head: string) => (m.slice(head.length) === REDACTED ? m : `${head}${REDACTED}`));
  out = out.replace(SAID, (m, head: string) => (m.slice(head.length) === REDACTED ? m : `${head}${REDACTED}`));
  return out;
}
