// The search's index over what the page already holds: entity names and descriptions, relation
// names, and the facts' descriptions and evidence (memory.loadTexts). Built once, on the first
// search after the texts are read; a query then costs a look at the postings of its own words.
// Words are read as the store's recall reads them (store/search.py): stop words dropped
// (STOP_WORDS, shipped from memlens.store.words), FTS5's porter stems (porter.js), any word
// matching, ranked by how many of the question's words a result holds, then by BM25.
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const NAME_WEIGHT = 2;       // a fact whose subject or object is named by a word
const RELATION_WEIGHT = 1.5; // a fact whose relation is named by a word
const ENTITY_NAME_WEIGHT = 3;
const MAX_WORDS = 30;        // words of a query that count (a bit each in a 32-bit mask)

// Terms (stems) by id, and the documents of one field as postings: term -> the documents holding
// it, once per occurrence (so a repeat counts), in compressed rows.
function postingsOf(termCount, docTerms) {
  const starts = new Int32Array(termCount + 1);
  for (let i = 0; i < docTerms.used; i++) starts[docTerms.terms[i] + 1]++;
  for (let t = 0; t < termCount; t++) starts[t + 1] += starts[t];
  const fill = starts.slice(0, termCount);
  const docs = new Int32Array(docTerms.used);
  for (let d = 0, at = 0; d < docTerms.lengths.length; d++) {
    for (const end = at + docTerms.lengths[d]; at < end; at++) docs[fill[docTerms.terms[at]]++] = d;
  }
  return { starts, docs };
}

// A growing list of term ids, document after document.
function termStream(docCount) {
  return { terms: new Int32Array(1024), used: 0, lengths: new Int32Array(docCount) };
}

function pushTerm(stream, term) {
  if (stream.used === stream.terms.length) {
    const bigger = new Int32Array(stream.terms.length * 2);
    bigger.set(stream.terms);
    stream.terms = bigger;
  }
  stream.terms[stream.used++] = term;
}

function buildSearchIndex(memory) {
  const termIds = new Map();  // stem -> id
  const terms = [];           // id -> stem
  const tokenTerm = new Map(); // folded token -> term id, or -1 for a stop word
  function termOf(token) {
    let id = tokenTerm.get(token);
    if (id !== undefined) return id;
    if (STOP_WORDS.has(token)) id = -1;
    else {
      const stem = porterStem(token);
      id = termIds.get(stem);
      if (id === undefined) {
        id = terms.length;
        terms.push(stem);
        termIds.set(stem, id);
      }
    }
    tokenTerm.set(token, id);
    return id;
  }
  function add(stream, doc, text) {
    if (!text) return;
    for (const token of tokensOf(text)) {
      const id = termOf(token);
      if (id >= 0) {
        pushTerm(stream, id);
        stream.lengths[doc]++;
      }
    }
  }
  const { entities, facts } = memory;
  const names = termStream(entities.length);
  const about = termStream(entities.length);
  entities.forEach((entity, i) => {
    add(names, i, entity.name);
    add(about, i, entity.description);
  });
  const texts = termStream(facts.length);
  const factsOfRelation = new Map(); // relation index -> its facts
  facts.forEach((fact, i) => {
    add(texts, i, fact.description);
    if (fact.evidence) for (const item of fact.evidence) add(texts, i, item);
    if (fact.relationName === null) return;
    let list = factsOfRelation.get(fact.relation);
    if (!list) factsOfRelation.set(fact.relation, (list = []));
    list.push(i);
  });
  // each relation's words (owned_by: own; by is a stop word)
  const relationTerms = [];
  for (const [relation, list] of factsOfRelation) {
    const words = new Set(tokensOf(list.length ? facts[list[0]].relationName : "").map(termOf).filter((t) => t >= 0));
    relationTerms.push({ relation, words, facts: list });
  }
  const count = terms.length;
  const average = (lengths) => (lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0) || 1;
  return {
    terms, termIds, termOf, relationTerms,
    names: postingsOf(count, names), about: postingsOf(count, about), texts: postingsOf(count, texts),
    aboutLengths: about.lengths, aboutAverage: average(about.lengths),
    textLengths: texts.lengths, textAverage: average(texts.lengths),
    // per query, reused: a word's weight for each document, and which words each one holds
    factWeight: new Float64Array(facts.length), factScore: new Float64Array(facts.length),
    factWords: new Int32Array(facts.length),
    entityWeight: new Float64Array(entities.length), entityScore: new Float64Array(entities.length),
    entityWords: new Int32Array(entities.length), entityNamed: new Int32Array(entities.length),
  };
}

// The query's words, each a set of term ids. The last word, still being typed unless a space
// follows it, also stands for every indexed word it begins.
function queryWords(index, query) {
  const tokens = tokensOf(query).filter((token) => !STOP_WORDS.has(token));
  const typing = /[\p{L}\p{N}]$/u.test(query);
  return tokens.slice(0, MAX_WORDS).map((token, i) => {
    const ids = new Set();
    const exact = index.termIds.get(porterStem(token));
    if (exact !== undefined) ids.add(exact);
    if (typing && i === tokens.length - 1) {
      index.terms.forEach((term, id) => { if (term.startsWith(token)) ids.add(id); });
    }
    return { token, ids: [...ids] };
  });
}

const bm25 = (tf, length, average) => (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / average));
const idf = (total, df) => Math.log(1 + (total - df + 0.5) / (df + 0.5));

// Adds one query word's BM25 share to every document of `field` that holds it; returns those
// documents (the word's weight for each is left in `weight`, cleared by the caller).
function weighField(postings, ids, weight, lengths, average, touched) {
  const { starts, docs } = postings;
  for (const id of ids) {
    for (let at = starts[id]; at < starts[id + 1]; at++) {
      const doc = docs[at];
      if (weight[doc] === 0) touched.push(doc);
      weight[doc] += 1; // term frequency for now
    }
  }
  for (const doc of touched) weight[doc] = bm25(weight[doc], lengths[doc], average);
  return touched;
}

// Scores every fact and entity holding any word of `words`; returns the facts and entities
// touched (their factScore/entityScore and factWords/entityWords set; the caller clears them).
function scoreWords(index, memory, words) {
  const { factWeight, factScore, factWords, entityWeight, entityScore, entityWords, entityNamed } = index;
  const facts = [], entities = [];
  words.forEach(({ ids }, bitIndex) => {
    const bit = 1 << bitIndex;
    const wordSet = new Set(ids);
    // facts: text, then relation, then the names of their ends
    const touched = weighField(index.texts, ids, factWeight, index.textLengths, index.textAverage, []);
    const touch = (f, w) => { if (factWeight[f] === 0) touched.push(f); factWeight[f] += w; };
    for (const { words: relationWords, facts: list } of index.relationTerms) {
      for (const id of relationWords) {
        if (!wordSet.has(id)) continue;
        for (const f of list) touch(f, RELATION_WEIGHT);
        break;
      }
    }
    const named = [];
    const { starts, docs } = index.names;
    for (const id of ids) {
      for (let at = starts[id]; at < starts[id + 1]; at++) {
        const e = docs[at];
        if (entityNamed[e] & bit) continue;
        entityNamed[e] |= bit;
        named.push(e);
        for (const fact of memory.entities[e].facts) touch(fact.index, NAME_WEIGHT);
      }
    }
    const factIdf = idf(memory.facts.length, touched.length);
    for (const f of touched) {
      if (factWords[f] === 0) facts.push(f);
      factWords[f] |= bit;
      factScore[f] += factIdf * factWeight[f];
      factWeight[f] = 0;
    }
    // entities: name, description
    const about = weighField(index.about, ids, entityWeight, index.aboutLengths, index.aboutAverage, []);
    for (const e of named) {
      if (entityWeight[e] === 0) about.push(e);
      entityWeight[e] += ENTITY_NAME_WEIGHT;
    }
    const entityIdf = idf(memory.entities.length, about.length);
    for (const e of about) {
      if (entityWords[e] === 0) entities.push(e);
      entityWords[e] |= bit;
      entityScore[e] += entityIdf * entityWeight[e];
      entityWeight[e] = 0;
    }
  });
  return { facts, entities };
}

function bitCount(mask) {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n++;
  return n;
}

// The `limit` best of `candidates` by key (highest first) that `shown` admits; `shown` is asked
// only of a candidate that would enter the list.
function bestShown(candidates, keyOf, shown, limit) {
  const best = []; // [key, candidate], highest key first
  for (const candidate of candidates) {
    const key = keyOf(candidate);
    if (best.length === limit && key <= best[limit - 1][0]) continue;
    if (!shown(candidate)) continue;
    let at = best.length;
    while (at > 0 && best[at - 1][0] < key) at--;
    best.splice(at, 0, [key, candidate]);
    if (best.length > limit) best.pop();
  }
  return best;
}
