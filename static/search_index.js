// The search's index over what the page already holds: entity names and descriptions, relation
// names, and the facts' descriptions and evidence (memory.loadTexts). Built once, from the first
// focus on the search box once the texts are read; a query then looks at its own words' postings.
// Words are read as the store's recall reads them (store/recall.py): stop words dropped
// (STOP_WORDS, shipped from memlens.store.words), FTS5's porter stems (porter.js), any word
// matching, ranked by how many of the question's words a result holds, then by BM25.
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const NAME_WEIGHT = 2;       // a fact whose subject or object is named by a word
const RELATION_WEIGHT = 1.5; // a fact whose relation is named by a word
const ENTITY_NAME_WEIGHT = 3;
const MAX_WORDS = 16;        // words of a query that count, as in recall (store/recall.py)
// What a word found only as the start of a longer one counts, beside its stem, as in recall; a word
// is looked for so when it has this many letters, or is the one being typed, and an agent noun
// ("owner") also without its ending ("own...").
const PREFIX_ONLY = 0.5;
const PREFIX_LETTERS = 4;
const AGENT_ENDINGS = ["ers", "ors", "er", "or"];
// A word held by more facts than this (a common word, "repo" in every evidence, a relation's
// name) is looked for only in the facts its rarer neighbours found; alone, its first this many
// facts are read. Its weight (idf) is small anyway; reading all of it was 0.9 s a keystroke
// at 100,000 entities.
const DRIVING_FACTS = 10000;

// A growing list of term ids, document after document; `starts[d]` is where document d begins.
function termStream(docCount) {
  return { terms: new Int32Array(4096), used: 0, starts: new Int32Array(docCount + 1) };
}

function pushTerm(stream, term) {
  if (stream.used === stream.terms.length) {
    const bigger = new Int32Array(stream.terms.length * 2);
    bigger.set(stream.terms);
    stream.terms = bigger;
  }
  stream.terms[stream.used++] = term;
}

// The documents of one field as postings: term -> the documents holding it, once per occurrence
// (so a repeat counts), in compressed rows; and each document's length.
function postingsOf(termCount, stream) {
  const docCount = stream.starts.length - 1;
  const starts = new Int32Array(termCount + 1);
  for (let i = 0; i < stream.used; i++) starts[stream.terms[i] + 1]++;
  for (let t = 0; t < termCount; t++) starts[t + 1] += starts[t];
  const fill = starts.slice(0, termCount);
  const docs = new Int32Array(stream.used);
  for (let d = 0; d < docCount; d++) {
    for (let at = stream.starts[d]; at < stream.starts[d + 1]; at++) docs[fill[stream.terms[at]]++] = d;
  }
  const lengths = new Int32Array(docCount);
  let total = 0;
  for (let d = 0; d < docCount; d++) total += lengths[d] = stream.starts[d + 1] - stream.starts[d];
  return { starts, docs, lengths, average: total / (docCount || 1) || 1, stream };
}

// Folded token -> term id (-1 for a stop word), for ASCII text read character by character: no
// string is made for a token seen before: the index of 30,000 facts (630,000 words) was built in
// 1.3 s this way and in 3.0 s through tokensOf and a Map (Chromium, best of three, on a loaded
// 2-core machine). From its first other character on, a text goes through tokensOf.
function asciiReader(termOf) {
  let size = 1 << 16;
  let slots = new Int32Array(size).fill(-1);
  const hashes = [], tokens = [], values = [];
  const buffer = new Uint16Array(64);

  // FNV's low bits alone crowd the table (tokens of digits most)
  const slotOf = (hash) => {
    let h = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) & (size - 1);
  };

  function lookup(hash, length) {
    let slot = slotOf(hash);
    for (let entry = slots[slot]; entry !== -1; entry = slots[slot = (slot + 1) & (size - 1)]) {
      if (hashes[entry] !== hash) continue;
      const token = tokens[entry];
      if (token.length !== length) continue;
      let same = true;
      for (let i = 0; i < length && same; i++) same = token.charCodeAt(i) === buffer[i];
      if (same) return values[entry];
    }
    const token = String.fromCharCode.apply(null, buffer.subarray(0, length));
    const value = termOf(token);
    slots[slot] = tokens.length;
    hashes.push(hash);
    tokens.push(token);
    values.push(value);
    if (tokens.length * 2 > size) grow();
    return value;
  }

  function grow() {
    size *= 2;
    slots = new Int32Array(size).fill(-1);
    hashes.forEach((hash, entry) => {
      let slot = slotOf(hash);
      while (slots[slot] !== -1) slot = (slot + 1) & (size - 1);
      slots[slot] = entry;
    });
  }

  // Pushes the terms of `text` onto `stream`; false, with nothing pushed from the first token that
  // is not plain ASCII on, and that token's start, when the rest must be read by tokensOf.
  return function read(text, stream) {
    const n = text.length;
    let hash = -2128831035, length = 0; // FNV-1a's offset basis
    for (let i = 0; i <= n; i++) {
      let c = i < n ? text.charCodeAt(i) : 32;
      if (c >= 128) return i - length;
      if (c >= 65 && c <= 90) c += 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        if (length === 64) return i - length; // long tokens: FTS5 leaves them unstemmed, tokensOf too
        buffer[length++] = c;
        hash = Math.imul(hash ^ c, 16777619);
      } else if (length) {
        const id = lookup(hash, length);
        if (id >= 0) pushTerm(stream, id);
        hash = -2128831035;
        length = 0;
      }
    }
    return -1;
  };
}

// Builds the index a slice at a time: yields between slices of SLICE_FACTS facts, so the page
// answers (names, typing) while a large memory's words are read; returns the index.
const SLICE_FACTS = 1000;

function* indexSteps(memory) {
  const termIds = new Map();   // stem -> id
  const terms = [];            // id -> stem
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
  const readAscii = asciiReader(termOf);
  function add(stream, text) {
    if (!text) return;
    const string = typeof text === "string" ? text : String(text);
    const rest = readAscii(string, stream);
    if (rest < 0) return;
    for (const token of tokensOf(string.slice(rest))) {
      const id = termOf(token);
      if (id >= 0) pushTerm(stream, id);
    }
  }
  const { entities, facts } = memory;
  const names = termStream(entities.length);
  const about = termStream(entities.length);
  for (let i = 0; i < entities.length; i++) {
    names.starts[i] = names.used;
    add(names, entities[i].name);
    about.starts[i] = about.used;
    add(about, entities[i].description);
    if (i % SLICE_FACTS === SLICE_FACTS - 1) yield;
  }
  names.starts[entities.length] = names.used;
  about.starts[entities.length] = about.used;
  const texts = termStream(facts.length);
  const factsOfRelation = new Map(); // relation index -> its facts
  for (let i = 0; i < facts.length; i++) {
    const fact = facts[i];
    texts.starts[i] = texts.used;
    add(texts, fact.description);
    const evidence = fact.evidence;
    if (evidence) for (let k = 0; k < evidence.length; k++) add(texts, evidence[k]);
    if (fact.relationName !== null) {
      let list = factsOfRelation.get(fact.relation);
      if (!list) factsOfRelation.set(fact.relation, (list = []));
      list.push(i);
    }
    if (i % SLICE_FACTS === SLICE_FACTS - 1) yield;
  }
  texts.starts[facts.length] = texts.used;
  // each relation's words (owned_by: own; by is a stop word)
  const relations = [...factsOfRelation].map(([relation, list]) => ({
    relation, facts: list, words: tokensOf(facts[list[0]].relationName).map(termOf).filter((t) => t >= 0) }));
  const count = terms.length;
  // the terms by their first two letters: a word being typed is looked for among its own
  const begun = new Map();
  terms.forEach((term, id) => {
    const key = term.slice(0, 2);
    const list = begun.get(key);
    if (list) list.push(id);
    else begun.set(key, [id]);
  });
  const textPostings = postingsOf(count, texts);
  yield;
  return {
    terms, termIds, termOf, relations, begun,
    names: postingsOf(count, names), about: postingsOf(count, about), texts: textPostings,
    // per query, reused: a word's weight for each document, and which words each one holds
    factWeight: new Float64Array(facts.length), factScore: new Float64Array(facts.length),
    factWords: new Int32Array(facts.length),
    entityWeight: new Float64Array(entities.length), entityScore: new Float64Array(entities.length),
    entityWords: new Int32Array(entities.length), entityNamed: new Int32Array(entities.length),
  };
}

// Runs `steps` to its end in slices of about `sliceMs`, yielding to the page between them
// (a message, not a timer: nested timers wait 4 ms each); resolves with what it returns.
function runInSlices(steps, sliceMs) {
  return new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    channel.port1.addEventListener("message", slice);
    channel.port1.start();
    function slice() {
      try {
        const until = performance.now() + sliceMs;
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) {
            channel.port1.close();
            resolve(step.value);
            return;
          }
          if (performance.now() >= until) break;
        }
        channel.port2.postMessage(null);
      } catch (error) {
        channel.port1.close();
        reject(error);
      }
    }
    slice();
  });
}

// The query's words, each the term ids it stands for with their weight: 1 for its stem,
// PREFIX_ONLY for longer words it begins. The last word, still being typed unless a space
// follows it, begins words from its second letter on.
function queryWords(index, query) {
  const tokens = tokensOf(query).filter((token) => !STOP_WORDS.has(token));
  const typing = /[\p{L}\p{N}]$/u.test(query);
  return tokens.slice(0, MAX_WORDS).map((token, i) => {
    const weights = new Map();
    const stem = porterStem(token);
    const prefixes = [];
    if (typing && i === tokens.length - 1 ? token.length > 1 : token.length >= PREFIX_LETTERS) prefixes.push(stem, token);
    const ending = AGENT_ENDINGS.find((end) => token.endsWith(end) && token.length - end.length >= 3);
    if (ending) prefixes.push(token.slice(0, -ending.length));
    for (const prefix of prefixes) {
      for (const id of index.begun.get(prefix.slice(0, 2)) || []) if (index.terms[id].startsWith(prefix)) weights.set(id, PREFIX_ONLY);
    }
    const exact = index.termIds.get(stem);
    if (exact !== undefined) weights.set(exact, 1);
    return { token, ids: [...weights.keys()], weights };
  });
}

const bm25 = (tf, length, average) => (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / average));
const idf = (total, df) => Math.log(1 + (Math.max(0, total - df) + 0.5) / (df + 0.5));

function postingCount(postings, ids) {
  let n = 0;
  for (const id of ids) n += postings.starts[id + 1] - postings.starts[id];
  return n;
}

// Where one query word is found: its terms (marked), the relations it names, the entities it
// names, and how many facts that reaches (their sum: an upper bound of its document frequency).
function wordReach(index, memory, word, bit) {
  const marks = new Float32Array(index.terms.length); // each term's weight for this word, 0 if none
  for (const [id, weight] of word.weights) marks[id] = weight;
  const best = (ids) => ids.reduce((most, t) => Math.max(most, marks[t]), 0);
  const relations = index.relations.filter((r) => best(r.words) > 0);
  const relationWeight = new Map(relations.map((r) => [r.relation, RELATION_WEIGHT * best(r.words)]));
  const named = new Map(); // entity index -> the word's weight in its name
  const { starts, docs } = index.names;
  for (const id of word.ids) {
    for (let at = starts[id]; at < starts[id + 1]; at++) {
      const e = docs[at];
      index.entityNamed[e] |= bit;
      named.set(e, Math.max(named.get(e) || 0, marks[id]));
    }
  }
  let facts = postingCount(index.texts, word.ids);
  for (const r of relations) facts += r.facts.length;
  for (const e of named.keys()) facts += memory.entities[e].facts.length;
  return { ...word, bit, marks, relationWeight, relations, named, facts };
}

// A word's weight in fact f, read from the fact itself (for the facts a rarer word found).
function factWeightOf(index, fact, reach) {
  const { terms, starts } = index.texts.stream;
  let tf = 0;
  for (let at = starts[fact.index]; at < starts[fact.index + 1]; at++) tf += reach.marks[terms[at]];
  let weight = tf ? bm25(tf, index.texts.lengths[fact.index], index.texts.average) : 0;
  weight += reach.relationWeight.get(fact.relation) || 0;
  const { subjectEntity: subject, objectEntity: object } = fact;
  const named = Math.max(subject === null ? 0 : reach.named.get(subject.index) || 0,
                         object === null ? 0 : reach.named.get(object.index) || 0);
  return weight + NAME_WEIGHT * named;
}

// Every fact a word reaches, with its weight left in factWeight: at most `limit` facts, read no
// further once that many are found.
function factsReached(index, memory, reach, limit) {
  const { factWeight } = index;
  const touched = [];
  const { starts, docs, lengths, average } = index.texts;
  texts: for (const id of reach.ids) {
    for (let at = starts[id]; at < starts[id + 1]; at++) {
      const f = docs[at];
      if (factWeight[f] === 0) {
        if (touched.length === limit) break texts;
        touched.push(f);
      }
      factWeight[f] += reach.marks[id]; // term frequency for now
    }
  }
  for (const f of touched) factWeight[f] = bm25(factWeight[f], lengths[f], average);
  const touch = (f, weight) => {
    if (factWeight[f] === 0) {
      if (touched.length === limit) return false;
      touched.push(f);
    }
    factWeight[f] += weight;
    return true;
  };
  relations: for (const r of reach.relations) {
    const weight = reach.relationWeight.get(r.relation);
    for (const f of r.facts) if (!touch(f, weight)) break relations;
  }
  names: for (const [e, mark] of reach.named) {
    for (const fact of memory.entities[e].facts) if (!touch(fact.index, NAME_WEIGHT * mark)) break names;
  }
  return touched;
}

// Scores the facts and entities holding any word of `words`; returns those touched (their
// factScore/entityScore and factWords/entityWords set; the caller clears them with clearScores).
function scoreWords(index, memory, words) {
  const { factWeight, factScore, factWords, entityWeight, entityScore, entityWords } = index;
  const reaches = words.map((word, i) => wordReach(index, memory, word, 1 << i)).sort((a, b) => a.facts - b.facts);
  const facts = [];
  const factTotal = memory.facts.length;
  for (const reach of reaches) {
    const factIdf = idf(factTotal, Math.min(factTotal, reach.facts));
    if (!facts.length || reach.facts <= DRIVING_FACTS) {
      for (const f of factsReached(index, memory, reach, DRIVING_FACTS)) {
        if (factWords[f] === 0) facts.push(f);
        factWords[f] |= reach.bit;
        factScore[f] += factIdf * factWeight[f];
        factWeight[f] = 0;
      }
    } else {
      for (const f of facts) {
        const weight = factWeightOf(index, memory.facts[f], reach);
        if (!weight) continue;
        factWords[f] |= reach.bit;
        factScore[f] += factIdf * weight;
      }
    }
  }
  const entities = [];
  for (const reach of reaches) {
    const touched = [];
    const { starts, docs, lengths, average } = index.about;
    for (const id of reach.ids) {
      for (let at = starts[id]; at < starts[id + 1]; at++) {
        const e = docs[at];
        if (entityWeight[e] === 0) touched.push(e);
        entityWeight[e] += reach.marks[id];
      }
    }
    for (const e of touched) entityWeight[e] = bm25(entityWeight[e], lengths[e], average);
    for (const [e, mark] of reach.named) {
      if (entityWeight[e] === 0) touched.push(e);
      entityWeight[e] += ENTITY_NAME_WEIGHT * mark;
    }
    const entityIdf = idf(memory.entities.length, touched.length);
    for (const e of touched) {
      if (entityWords[e] === 0) entities.push(e);
      entityWords[e] |= reach.bit;
      entityScore[e] += entityIdf * entityWeight[e];
      entityWeight[e] = 0;
    }
  }
  return { facts, entities };
}

function clearScores(index, touched) {
  for (const f of touched.facts) {
    index.factWords[f] = 0;
    index.factScore[f] = 0;
  }
  for (const e of touched.entities) {
    index.entityWords[e] = 0;
    index.entityScore[e] = 0;
    index.entityNamed[e] = 0;
  }
}

function bitCount(mask) {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n++;
  return n;
}

// The `limit` candidates with the highest `keys` that `shown` admits, best first; `shown` is
// asked only of a candidate that would enter the list.
function bestShown(keys, shown, limit) {
  const best = []; // candidate indexes, highest key first
  for (let c = 0; c < keys.length; c++) {
    const key = keys[c];
    if (best.length === limit && key <= keys[best[limit - 1]]) continue;
    if (!shown(c)) continue;
    let at = best.length;
    while (at > 0 && keys[best[at - 1]] < key) at--;
    best.splice(at, 0, c);
    if (best.length > limit) best.pop();
  }
  return best;
}
