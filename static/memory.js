// Reads the page's data blocks into linked objects: entities know their facts, facts know their
// ends, versions and contradictions. Column positions come from the data itself (see payload.py).
// Every record is one object literal of a fixed shape: 300,000 facts built property by property
// took most of a second longer. The ledger has a block of its own and is decoded the first time
// something reads it.

// A name as the store matches it (store/ids.py normalize_name): spacing collapsed, case folded.
// Upper- then lower-casing folds as Python's casefold does where lower-casing alone does not (ß);
// a final sigma, which lower-casing restores at the end of a word, folds to σ as casefold has it.
const foldName = (text) => String(text).trim().replace(/\s+/g, " ").toUpperCase().toLowerCase().replace(/ς/g, "σ");

function zipRow(columns, row) {
  const item = {};
  for (let i = 0; i < columns.length; i++) item[columns[i]] = row[i];
  return item;
}

function columnIndex(columns) {
  const at = {};
  columns.forEach((name, i) => { at[name] = i; });
  return at;
}

function readBlock(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

const NO_CONTRADICTIONS = Object.freeze([]);

function decodeEntities(raw) {
  const c = columnIndex(raw.columns.entities);
  return raw.entities.map((row, index) => {
    const type = raw.types[row[c.type]];
    const name = row[c.name];
    return {
      index, id: row[c.id], name, type: row[c.type], description: row[c.description],
      createdAt: row[c.createdAt], updatedAt: row[c.updatedAt], mergedInto: row[c.mergedInto],
      mergedAt: row[c.mergedAt], x: row[c.x], y: row[c.y], degree: row[c.degree],
      page: c.page === undefined ? undefined : row[c.page],
      typeName: type.name, color: type.color, facts: [], searchName: foldName(name),
    };
  });
}

function decodeVersion(c, row) {
  return { from: row[c.from], to: row[c.to], status: row[c.status], supersededBy: row[c.supersededBy],
           reason: row[c.reason], validFrom: row[c.validFrom], validTo: row[c.validTo], supersededByFact: null };
}

// The facts block holds one array per field: fact i is entry i of every array.
function decodeFacts(raw, c, entities) {
  const h = columnIndex(raw.columns.history);
  return c.id.map((id, index) => {
    const relation = raw.relations[c.relation[index]];
    const actor = c.actor[index];
    const fact = {
      index, id, subject: c.subject[index], relation: c.relation[index], object: c.object[index],
      status: c.status[index], supersededBy: c.supersededBy[index], reason: c.reason[index],
      contested: c.contested[index], validFrom: c.validFrom[index], validTo: c.validTo[index],
      recordedAt: c.recordedAt[index], retiredAt: c.retiredAt[index], actor: actor === -1 ? null : raw.actors[actor],
      description: c.description[index], evidence: c.evidence[index], links: c.links[index],
      reassertions: c.reassertions[index], history: null, contradictions: c.contradictions[index],
      relationName: relation ? relation.name : null, functional: relation ? relation.functional : false,
      subjectEntity: entities[c.subject[index]] || null, objectEntity: entities[c.object[index]] || null,
      supersededByFact: null, contradictionList: NO_CONTRADICTIONS,
      curve: 0, // how far its edge bends away from parallel ones (graph_view.js)
    };
    const versions = c.history[index];
    // null: one open version equal to the fact itself (most facts), rebuilt here
    fact.history = versions === null
      ? [{ from: fact.recordedAt, to: -1, status: fact.status, supersededBy: fact.supersededBy,
           reason: fact.reason, validFrom: fact.validFrom, validTo: fact.validTo, supersededByFact: null }]
      : versions.map((version) => decodeVersion(h, version));
    return fact;
  });
}

function loadMemory() {
  const raw = readBlock("memlens-data");
  const columns = raw.columns;
  const entities = decodeEntities(raw);
  const facts = decodeFacts(raw, readBlock("memlens-facts"), entities);
  const contradictions = raw.contradictions.map((row, index) => {
    const contradiction = zipRow(columns.contradictions, row);
    contradiction.index = index;
    contradiction.factList = contradiction.facts.map((i) => facts[i] || null);
    return contradiction;
  });
  for (const fact of facts) {
    if (fact.supersededBy !== -1) fact.supersededByFact = facts[fact.supersededBy] || null;
    for (const version of fact.history) {
      if (version.supersededBy !== -1) version.supersededByFact = facts[version.supersededBy] || null;
    }
    if (fact.contradictions.length) fact.contradictionList = fact.contradictions.map((i) => contradictions[i]);
    if (fact.subjectEntity) fact.subjectEntity.facts.push(fact);
    if (fact.objectEntity && fact.objectEntity !== fact.subjectEntity) fact.objectEntity.facts.push(fact);
  }
  let ledger = null;
  const decodeLedger = () => {
    // one array per field, like the facts; row i's references are refs[refsEnd[i - 1] .. refsEnd[i]]
    const c = readBlock("memlens-ledger");
    return c.seq.map((seq, i) => ({
      seq, at: c.at[i], actor: c.actor[i] === -1 ? null : raw.actors[c.actor[i]],
      action: raw.actions[c.action[i]], refs: c.refs.slice(i ? c.refsEnd[i - 1] : 0, c.refsEnd[i]),
    }));
  };
  return {
    meta: raw.meta,
    types: raw.types,
    times: raw.times,
    validTimes: raw.validTimes,
    entities,
    facts,
    contradictions,
    maintenance: raw.maintenance, // [kind, rows] pairs for the worklist and the dismissals, read when paged in
    get ledger() { return ledger || (ledger = decodeLedger()); },
    overview: raw.overview.map((i) => entities[i]),
    drawLimit: raw.drawLimit,
    showSuperseded: raw.showSuperseded,
    entityById: new Map(entities.map((e) => [e.id, e])),
    factById: new Map(facts.map((f) => [f.id, f])),
    contradictionById: new Map(contradictions.map((c) => [c.id, c])),
  };
}

function entityName(entity) {
  return entity ? entity.name : "(forgotten entity)";
}

function factLabel(fact) {
  if (!fact) return "(unknown fact)";
  if (fact.status === "forgotten" || fact.relationName === null) return "forgotten fact (text erased)";
  return entityName(fact.subjectEntity) + " " + fact.relationName + " " + entityName(fact.objectEntity);
}

function neighboursOf(entity) {
  const seen = new Set();
  for (const fact of entity.facts) {
    for (const end of [fact.subjectEntity, fact.objectEntity]) {
      if (end && end !== entity) seen.add(end);
    }
  }
  return [...seen];
}
