// Words as SQLite's FTS5 `porter` tokenizer reads them (over its default `unicode61`), so the
// page's search stems as the store's recall does: tokens are runs of letters and digits (an
// underscore separates, so `owned_by` is two words), case and Latin diacritics folded, and each
// token of 3 to 64 bytes stemmed by FTS5's own rendering of Porter's algorithm (fts5_tokenize.c),
// quirks included: tests/test_porter_stems.py holds the two to the same stems over a word list.
const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;
const ASCII = /^[\x00-\x7f]*$/;
const UTF8 = new TextEncoder();

// A token folded as unicode61 folds it (remove_diacritics 1): lower case, the marks of Latin
// letters dropped (a Greek or Cyrillic letter keeps its own).
function foldToken(token) {
  const lower = token.toLowerCase();
  return ASCII.test(lower) ? lower : lower.normalize("NFD").replace(LATIN_MARKS, "$1").normalize("NFC");
}

const ASCII_TOKEN = /[a-z0-9]+/g;

// The folded tokens of `text`, in order, repeats kept. In ASCII text a token is a run of ASCII
// letters and digits and folding is lower-casing, which needs no Unicode classes.
function tokensOf(text) {
  if (!text) return [];
  const string = String(text);
  if (ASCII.test(string)) return string.toLowerCase().match(ASCII_TOKEN) || [];
  const out = [];
  for (const match of string.matchAll(TOKEN)) {
    const token = foldToken(match[0]);
    if (token) out.push(token);
  }
  return out;
}

// The tokens of `text` with where each stands in it: [start, end, folded token].
function tokenSpans(text) {
  const out = [];
  for (const match of String(text).matchAll(TOKEN)) out.push([match.index, match.index + match[0].length, foldToken(match[0])]);
  return out;
}

// `y` is a vowel after a consonant (isVowel's second argument says whether one came before).
function isVowel(c, afterConsonant) {
  return c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (afterConsonant && c === "y");
}

// Where the first vowel-consonant sequence of w[from, to) ends (past its consonant), or 0.
function gobbleVC(w, from, to, afterConsonant) {
  let consonant = afterConsonant;
  let i = from;
  for (; i < to; i++) {
    consonant = !isVowel(w[i], consonant);
    if (!consonant) break;
  }
  for (i++; i < to; i++) {
    consonant = !isVowel(w[i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

// Porter's measure conditions on the stem w[0, n).
const mGt0 = (w, n) => gobbleVC(w, 0, n, false) !== 0;
function mGt1(w, n) {
  const at = gobbleVC(w, 0, n, false);
  return at !== 0 && gobbleVC(w, at, n, true) !== 0;
}
function mEq1(w, n) {
  const at = gobbleVC(w, 0, n, false);
  return at !== 0 && gobbleVC(w, at, n, true) === 0;
}
// *o: the stem ends consonant-vowel-consonant, the last not w, x or y
function oStar(w, n) {
  const last = w[n - 1];
  if (last === "w" || last === "x" || last === "y") return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(w[i], consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}
const mGt1SorT = (w, n) => (w[n - 1] === "s" || w[n - 1] === "t") && mGt1(w, n);
// *v*: the stem has a vowel (here `y` counts anywhere but first, as FTS5 has it)
function hasVowel(w, n) {
  for (let i = 0; i < n; i++) if (isVowel(w[i], i > 0)) return true;
  return false;
}

// [suffix, condition on the stem, replacement], by the letter before a word's last, as FTS5's
// generated steps switch on it; within a letter the first suffix that ends the word decides.
const STEP2 = {
  a: [["ational", mGt0, "ate"], ["tional", mGt0, "tion"]],
  c: [["enci", mGt0, "ence"], ["anci", mGt0, "ance"]],
  e: [["izer", mGt0, "ize"]],
  g: [["logi", mGt0, "log"]],
  l: [["bli", mGt0, "ble"], ["alli", mGt0, "al"], ["entli", mGt0, "ent"], ["eli", mGt0, "e"], ["ousli", mGt0, "ous"]],
  o: [["ization", mGt0, "ize"], ["ation", mGt0, "ate"], ["ator", mGt0, "ate"]],
  s: [["alism", mGt0, "al"], ["iveness", mGt0, "ive"], ["fulness", mGt0, "ful"], ["ousness", mGt0, "ous"]],
  t: [["aliti", mGt0, "al"], ["iviti", mGt0, "ive"], ["biliti", mGt0, "ble"]],
};
const STEP3 = {
  a: [["ical", mGt0, "ic"]],
  s: [["ness", mGt0, ""]],
  t: [["icate", mGt0, "ic"], ["iciti", mGt0, "ic"]],
  u: [["ful", mGt0, ""]],
  v: [["ative", mGt0, ""]],
  z: [["alize", mGt0, "al"]],
};
const STEP4 = {
  a: [["al", mGt1, ""]],
  c: [["ance", mGt1, ""], ["ence", mGt1, ""]],
  e: [["er", mGt1, ""]],
  i: [["ic", mGt1, ""]],
  l: [["able", mGt1, ""], ["ible", mGt1, ""]],
  n: [["ant", mGt1, ""], ["ement", mGt1, ""], ["ment", mGt1, ""], ["ent", mGt1, ""]],
  o: [["ion", mGt1SorT, ""], ["ou", mGt1, ""]],
  s: [["ism", mGt1, ""]],
  t: [["ate", mGt1, ""], ["iti", mGt1, ""]],
  u: [["ous", mGt1, ""]],
  v: [["ive", mGt1, ""]],
  z: [["ize", mGt1, ""]],
};

// One of steps 2-4: the word with the first matching suffix replaced, if its stem qualifies.
// A suffix must be shorter than the word (FTS5 compares `nBuf > length`).
function applyStep(w, rules) {
  const list = rules[w[w.length - 2]];
  if (!list) return w;
  for (const [suffix, condition, replacement] of list) {
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const stem = w.length - suffix.length;
      return condition(w, stem) ? w.slice(0, stem) + replacement : w;
    }
  }
  return w;
}

function step1a(w) {
  const n = w.length;
  if (w[n - 1] !== "s") return w;
  if (w[n - 2] === "e") {
    return (n > 4 && w[n - 4] === "s" && w[n - 3] === "s") || (n > 3 && w[n - 3] === "i") ? w.slice(0, n - 2) : w.slice(0, n - 1);
  }
  return w[n - 2] !== "s" ? w.slice(0, n - 1) : w;
}

// Step 1b: "eed" -> "ee" (m > 0); "ed", "ing" dropped after a vowel, then tidied.
function step1b(w) {
  const n = w.length;
  let cut = 0;
  if (w[n - 2] === "e") {
    if (n > 3 && w.endsWith("eed")) return mGt0(w, n - 3) ? w.slice(0, n - 1) : w;
    if (n > 2 && w.endsWith("ed") && hasVowel(w, n - 2)) cut = 2;
  } else if (w[n - 2] === "n" && n > 3 && w.endsWith("ing") && hasVowel(w, n - 3)) cut = 3;
  if (!cut) return w;
  const s = w.slice(0, n - cut);
  const m = s.length;
  const before = s[m - 2];
  if (m > 2 && ((before === "a" && s.endsWith("at")) || (before === "b" && s.endsWith("bl")) || (before === "i" && s.endsWith("iz")))) {
    return s + "e";
  }
  const c = s[m - 1];
  if (!isVowel(c, false) && c !== "l" && c !== "s" && c !== "z" && c === s[m - 2]) return s.slice(0, m - 1);
  if (mEq1(s, m) && oStar(s, m)) return s + "e";
  return s;
}

function utf8Length(token) {
  return ASCII.test(token) ? token.length : UTF8.encode(token).length;
}

// A folded token's stem. Tokens under 3 or over 64 bytes pass through, as in FTS5.
function porterStem(token) {
  const bytes = utf8Length(token);
  if (bytes < 3 || bytes > 64) return token;
  let w = step1b(step1a(token));
  if (w[w.length - 1] === "y" && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + "i";
  w = applyStep(applyStep(applyStep(w, STEP2), STEP3), STEP4);
  const n = w.length;
  if (w[n - 1] === "e" && (mGt1(w, n - 1) || (mEq1(w, n - 1) && !oStar(w, n - 1)))) w = w.slice(0, n - 1);
  const m = w.length;
  if (m > 1 && w[m - 1] === "l" && w[m - 2] === "l" && mGt1(w, m - 1)) w = w.slice(0, m - 1);
  return w;
}
