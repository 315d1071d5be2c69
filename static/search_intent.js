// What a query asks beyond its words, read as the store's recall reads it (store/recall_intent.py):
// the relation asked for (its own words by their stems, or as people word it), the side of it the
// entity the query names stands on, and the kind of answer a question word names. The tables come
// from Python (RECALL_INTENT, shipped from memlens.store.words and recall_intent); the rules are
// written twice, and tests/test_browser_search_intent.py holds the two to the same bonuses.

// A contraction's or possessive's ending, and "n't", as store/words.py reads them.
const IRREGULAR_NOT = /\b(can|won|shan)['\u2019]t\b/giu;
const NOT_ENDING = /(?<=[\p{L}\p{N}])n['\u2019]t(?![\p{L}\p{N}])/giu;
const CONTRACTION = /(?<=[\p{L}\p{N}])['\u2019](?:s|re|ve|ll|d|m)(?![\p{L}\p{N}])/giu;
const IRREGULAR_NOT_WORDS = { can: "can", won: "will", shan: "shall" };

// The words of `text` as store/words.py `words` reads them: contractions as their words.
function intentWords(text) {
  const plain = String(text)
    .replace(IRREGULAR_NOT, (_, head) => IRREGULAR_NOT_WORDS[head.toLowerCase()] + " not")
    .replace(CONTRACTION, "")
    .replace(NOT_ENDING, " not");
  return tokensOf(plain);
}

const DATE_LIKE = new RegExp(RECALL_INTENT.dateLike, "iu");
const PASSIVE = /(?:^|[_\-. ])by$/;

function readIntent(query) {
  const raw = intentWords(query);
  const tokens = raw.map(porterStem);
  let kind = raw.slice(0, 3).map((word) => RECALL_INTENT.kinds[word]).find(Boolean) || null;
  if (raw[0] === "how" && (raw[1] === "often" || raw[1] === "long")) kind = "time";
  if (!kind && (raw[0] === "which" || raw[0] === "what") && raw.length > 1) kind = "type:" + raw[1];
  const phrases = new Map(); // relation -> [where, inverse] of the first phrase saying it
  for (const [phrase, meanings] of RECALL_INTENT.phrases) {
    const wanted = intentWords(phrase).map(porterStem);
    for (let start = 0; start + wanted.length <= tokens.length; start++) {
      if (!wanted.every((stem, i) => tokens[start + i] === stem)) continue;
      for (const [relation, inverse] of meanings) if (!phrases.has(relation)) phrases.set(relation, [start, inverse]);
    }
  }
  return { raw, tokens, kind, phrases };
}

// The stem of word `place` without an agent noun's ending ("owner" -> own), if it has one.
function agentStem(intent, place) {
  const word = intent.raw[place];
  const ending = RECALL_INTENT.agentEndings.find((end) => word.endsWith(end) && word.length - end.length >= 3);
  return ending ? porterStem(word.slice(0, -ending.length)) : null;
}

const byAfter = (intent, place) => place + 1 < intent.raw.length && intent.raw[place + 1] === "by";

// How fully the query holds the relation's own words (by their stems, irregular verbs too).
function relationSaid(intent, relation) {
  const own = intentWords(relation).filter((word) => !STOP_WORDS.has(word));
  if (!own.length) return null;
  const places = [];
  for (const word of own) {
    const forms = new Set([porterStem(word), porterStem(RECALL_INTENT.irregular[word] || word)]);
    const place = intent.tokens.findIndex((token, i) => forms.has(token) || forms.has(agentStem(intent, i)));
    if (place !== -1) places.push(place);
  }
  if (!places.length) return null;
  return { strength: places.length / own.length, at: Math.min(...places), inverse: false,
           passive: byAfter(intent, Math.max(...places)), said: true };
}

function relationMatch(intent, relation) {
  const said = relationSaid(intent, relation);
  if ((said && said.strength === 1) || !intent.phrases.has(relation)) return said;
  const [at, inverse] = intent.phrases.get(relation);
  return { strength: 1, at, inverse, passive: byAfter(intent, at), said: false };
}

// Where the query names an entity: the place of the first of its name's words it holds.
function namedAt(intent, name) {
  const all = intentWords(name);
  const own = all.filter((word) => !STOP_WORDS.has(word));
  const stems = new Set((own.length ? own : all).map(porterStem));
  const place = intent.tokens.findIndex((token) => stems.has(token));
  return place === -1 ? null : place;
}

function wantedEnd(intent, match, named, relation) {
  const between = named > match.at ? intent.raw.slice(match.at + 1, named) : [];
  const of = between.length > 0 && between[0] === "of" && !intentWords(relation).includes("of");
  const acts = named < match.at || match.passive || of || between.some((word) => RECALL_INTENT.auxiliaries.includes(word));
  const subjectActs = PASSIVE.test(relation) === match.inverse;
  return acts === subjectActs ? "subject" : "object";
}

function kindMatch(kind, relation, type, text) {
  if (kind.startsWith("type:")) {
    const named = kind.slice(5), own = type.toLowerCase();
    return named === own || named === own + "s" || named === own + "es" ? 1 : 0;
  }
  const stems = intentWords(relation).map(porterStem);
  if (kind === "person") return RECALL_INTENT.personTypes[type] || 0;
  if (kind === "place") {
    return Math.max(RECALL_INTENT.placeTypes[type] || 0, stems.some((s) => RECALL_INTENT.placeWords.includes(s)) ? 0.5 : 0);
  }
  if (kind === "time") return DATE_LIKE.test(text) ? 1 : stems.some((s) => RECALL_INTENT.timeWords.includes(s)) ? 0.5 : 0;
  return 0;
}

// What fact `fact` has of what `intent` asks, as recall adds it to a fact's score (Asking.of);
// `named`: entity index -> where the query names it.
function askedBonus(intent, named, fact) {
  const ends = { subject: fact.subjectEntity, object: fact.objectEntity };
  if (!ends.subject || !ends.object) return 0;
  const match = relationMatch(intent, fact.relationName);
  const namedEnd = ["subject", "object"].find((end) => named.has(ends[end].index)) || null;
  const weights = RECALL_INTENT.weights;
  let bonus = 0;
  if (match && (namedEnd || named.size === 0)) {
    if (!match.said) bonus += weights.relation * match.strength;
    if (namedEnd && wantedEnd(intent, match, named.get(ends[namedEnd].index), fact.relationName) === namedEnd) {
      bonus += weights.side * match.strength;
    }
  }
  if (intent.kind) {
    const answers = namedEnd ? [namedEnd === "subject" ? ends.object : ends.subject] : [ends.subject, ends.object];
    bonus += weights.kind * Math.max(...answers.map((e) => kindMatch(intent.kind, fact.relationName, e.typeName,
                                                                      e.name + " " + (e.description || ""))));
  }
  return bonus;
}
