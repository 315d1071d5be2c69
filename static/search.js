// The search box: a combobox over entities and facts (drawn or not). A name typed whole or begun
// comes first, as it always did; then whatever holds the query's words (names, relations, the
// facts' descriptions and evidence: search_index.js), fuller matches first. It follows the
// time-travel sliders: a fact not recorded, or hidden, at the chosen time is not listed.
// Enter picks, Escape closes.
const SEARCH_RESULTS = 12;
const SNIPPET_BEFORE = 30; // characters of a description shown before its first matching word
const SNIPPET_LENGTH = 120;
const INDEX_SLICE_MS = 40; // the index is built in slices this long: a keystroke meanwhile waits at most this

// Tiers of a result's key: a name typed whole, a name or id begun, words matched, a name holding
// the text somewhere; within them, entities not merged away, then words matched, named entities
// before other results, BM25, and links.
const TIER = 1e12, NOT_MERGED = 1e11, WORD = 1e9, NAMED = 1e8, SCORE = 1e3;

// What a fact has of what the query asks (search_intent.js) counts among the words it holds: recall
// adds it to a score whose words weigh 1 to 4 each, about this much a word.
const ASKED_PER_WORD = 2;
// The entities a query names, as recall takes them (recall._named): of the best few holding a word
// in their name, those whose named words no other names more of.
const NAMED_ENTITIES = 5;

function namedEntities(index, memory, touched, intent) {
  const best = [...touched].sort((a, b) => index.entityScore[b] - index.entityScore[a] || a - b)
    .slice(0, NAMED_ENTITIES).filter((e) => index.entityNamed[e]);
  const named = new Map();
  for (const e of best) {
    const bits = index.entityNamed[e];
    if (best.some((other) => other !== e && (index.entityNamed[other] & bits) === bits && index.entityNamed[other] !== bits)) continue;
    const place = namedAt(intent, memory.entities[e].name);
    if (place !== null) named.set(e, place);
  }
  return named;
}

function createSearch(memory, view, input, list, onPick) {
  let matches = [];
  let active = -1;
  let index = null;  // built on the first search once the facts' texts are read
  let indexed = null;

  // Started when the page is first idle, or by the first focus on the box if that comes first: a
  // large memory's words are read a slice at a time, so names answer meanwhile.
  function ensureIndex() {
    indexed = indexed || memory.loadTexts().then(() => {
      const started = performance.now();
      return runInSlices(indexSteps(memory), INDEX_SLICE_MS).then((built) => {
        index = built;
        index.builtMs = performance.now() - started;
      });
    });
    return indexed;
  }

  // an observation is found by the fact that notes it on its entity, not as an entity of its own
  const entityShown = (entity) => entity.observation === null && (view.asOfRecord === null || entity.createdAt <= view.asOfRecord);
  const factShown = (fact) => hiddenWhy(fact, view) === null;

  // Entities by name alone: what the search found before it read words.
  function nameTiers(q, keys) {
    for (const entity of memory.entities) {
      const name = entity.searchName;
      let tier = 0;
      if (name === q) tier = 3;
      else if (name.startsWith(q) || (q.length >= 4 && entity.id.startsWith(q))) tier = 2;
      else if (name.includes(q)) tier = 0.5;
      if (tier) keys.set(entity.index, tier * TIER);
    }
  }

  function rank(query) {
    const q = foldName(query);
    if (!q) return [];
    const entityKeys = new Map(); // entity index -> key so far
    nameTiers(q, entityKeys);
    let words = [];
    let facts = [];
    let factKeys = null;
    if (index) {
      words = queryWords(index, query);
      const touched = scoreWords(index, memory, words);
      const intent = readIntent(query);
      const named = namedEntities(index, memory, touched.entities, intent);
      for (const e of touched.entities) {
        const key = WORD * bitCount(index.entityWords[e]) + (index.entityNamed[e] ? NAMED : 0) + SCORE * index.entityScore[e];
        entityKeys.set(e, Math.max(entityKeys.get(e) || 0, TIER) + key);
      }
      facts = touched.facts;
      factKeys = new Float64Array(facts.length);
      facts.forEach((f, i) => {
        const subject = memory.facts[f].subjectEntity;
        const asked = askedBonus(intent, named, memory.facts[f]) / ASKED_PER_WORD;
        factKeys[i] = TIER + NOT_MERGED + WORD * (bitCount(index.factWords[f]) + asked) + SCORE * index.factScore[f] +
          Math.min(subject ? subject.degree : 0, 999) / 1e3;
      });
      clearScores(index, touched);
    }
    // candidates 0..facts.length-1 are facts, the rest entities
    const entities = [...entityKeys.keys()];
    const keys = new Float64Array(facts.length + entities.length);
    if (factKeys) keys.set(factKeys);
    entities.forEach((e, i) => {
      const entity = memory.entities[e];
      keys[facts.length + i] = entityKeys.get(e) + (entity.mergedInto === -1 ? NOT_MERGED : 0) + Math.min(entity.degree, 999) / 1e3;
    });
    const terms = new Set(words.flatMap((w) => w.ids));
    const itemOf = (c) => (c < facts.length ? { fact: memory.facts[facts[c]], terms } : { entity: memory.entities[entities[c - facts.length]] });
    const shown = (c) => (c < facts.length ? factShown(memory.facts[facts[c]]) : entityShown(memory.entities[entities[c - facts.length]]));
    return bestShown(keys, shown, SEARCH_RESULTS).map(itemOf);
  }

  function open(isOpen) {
    list.hidden = !isOpen;
    input.setAttribute("aria-expanded", String(isOpen));
  }

  // A piece of `text` around its first word the query holds, those words marked.
  function snippet(text, terms) {
    const spans = tokenSpans(text).filter(([, , token]) => terms.has(index.termOf(token)));
    if (!spans.length) return null;
    const start = Math.max(0, spans[0][0] - SNIPPET_BEFORE);
    const end = Math.min(text.length, start + SNIPPET_LENGTH);
    const parts = [start > 0 ? "\u2026" : ""];
    let at = start;
    for (const [from, to] of spans) {
      if (from >= end) break;
      parts.push(text.slice(at, from), el("mark", {}, text.slice(from, to)));
      at = to;
    }
    parts.push(text.slice(at, end), end < text.length ? "\u2026" : "");
    return el("span", { className: "option-snippet" }, ...parts);
  }

  function factSnippet(fact, terms) {
    for (const text of [fact.description, ...(fact.evidence || [])]) {
      const piece = text && snippet(text, terms);
      if (piece) return piece;
    }
    return fact.description ? el("span", { className: "option-snippet" }, clip(fact.description, SNIPPET_LENGTH)) : null;
  }

  function factOption(fact, terms) {
    const look = factAppearance(fact, view);
    const swatch = el("span", { className: "swatch-dot fact-dot", "aria-hidden": "true" });
    swatch.style.backgroundColor = fact.subjectEntity ? fact.subjectEntity.color : "";
    const tag = look.status && look.status !== "current" ? "fact \u00b7 " + look.status : look.contested ? "fact \u00b7 contested" : "fact";
    return [swatch, el("span", { className: "option-body" }, el("span", { className: "option-name" }, factLabel(fact)),
                       factSnippet(fact, terms)),
            el("span", { className: "option-type" }, tag)];
  }

  function entityOption(entity) {
    const swatch = el("span", { className: "swatch-dot", "aria-hidden": "true" });
    swatch.style.backgroundColor = entity.color;
    return [swatch, el("span", { className: "option-name" }, entity.name),
            el("span", { className: "option-type" }, entity.mergedInto === -1 ? entity.typeName : "merged")];
  }

  function paint() {
    list.replaceChildren(...matches.map((hit, i) => {
      const option = el("li", { role: "option", id: "search-option-" + i, className: "search-option" + (hit.fact ? " search-fact" : ""),
                                "aria-selected": String(i === active), "data-kind": hit.fact ? "fact" : "entity",
                                "data-id": hit.fact ? hit.fact.id : hit.entity.id },
        ...(hit.fact ? factOption(hit.fact, hit.terms) : entityOption(hit.entity)));
      option.addEventListener("mousedown", (event) => { event.preventDefault(); pick(hit); });
      return option;
    }));
    if (!matches.length && input.value.trim()) list.append(el("li", { className: "search-empty" }, index ? "Nothing matches" : "No entity matches"));
    if (active >= 0) input.setAttribute("aria-activedescendant", "search-option-" + active);
    else input.removeAttribute("aria-activedescendant");
    open(Boolean(input.value.trim()));
  }

  function pick(hit) {
    open(false);
    if (hit.entity) input.value = hit.entity.name;
    onPick(hit);
  }

  function answer() {
    matches = rank(input.value);
    active = matches.length ? 0 : -1;
    paint();
  }

  // Until the index is built, names answer; the words' answer follows once it is.
  function search() {
    answer();
    if (!index) {
      ensureIndex().then(() => { if (document.activeElement === input && input.value.trim()) answer(); });
    }
  }

  input.addEventListener("focus", () => { if (!index) ensureIndex(); });
  input.addEventListener("input", search);
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!matches.length) return;
      event.preventDefault();
      active = (active + (event.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length;
      paint();
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (!matches.length) matches = rank(input.value);
      if (matches.length) pick(matches[Math.max(active, 0)]);
    } else if (event.key === "Escape") {
      event.stopPropagation();
      if (!list.hidden) open(false);
      else input.value = "";
    }
  });
  input.addEventListener("blur", () => open(false));
  // what was typed while the page's data was still being read
  if (document.activeElement === input && input.value.trim()) search();
  // Once the page is idle its words are read anyway, a slice at a time, so whoever comes to the
  // box after a moment finds them read: at 100,000 entities that takes about 2.3 s, which a
  // first search would otherwise wait for (names answer meanwhile either way).
  const whenIdle = window.requestIdleCallback || ((run) => setTimeout(run, 500));
  whenIdle(() => { if (!index) ensureIndex(); });
  return {
    focus: () => input.focus(),
    rank,
    // what one fact has of what `query` asks, the entities `namedIds` named (as recall's Asking.of):
    // tests hold it to store/recall_intent.py
    asked(query, namedIds, factId) {
      const intent = readIntent(query);
      const named = new Map();
      for (const id of namedIds) {
        const entity = memory.entityById.get(id);
        const place = namedAt(intent, entity.name);
        if (place !== null) named.set(entity.index, place);
      }
      return askedBonus(intent, named, memory.factById.get(factId));
    },
    words: intentWords,
    // the results for `words`, as if typed
    show(words) {
      input.value = words;
      input.focus();
      search();
    },
    // resolves once the words are indexed (the first search starts it), with how long that took
    indexed: () => ensureIndex().then(() => index.builtMs),
  };
}
