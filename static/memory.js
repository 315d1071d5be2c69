// Reads the page's data blocks into linked objects: entities know their facts, facts know their
// ends, versions and contradictions. Column names come from the data itself (see payload.py).
// The ledger has a block of its own and is decoded the first time something reads it.
function zipRow(columns, row) {
  const item = {};
  for (let i = 0; i < columns.length; i++) item[columns[i]] = row[i];
  return item;
}

function readBlock(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

function loadMemory() {
  const raw = readBlock("memlens-data");
  raw.facts = readBlock("memlens-facts");
  const columns = raw.columns;
  const entities = raw.entities.map((row, index) => {
    const entity = zipRow(columns.entities, row);
    const type = raw.types[entity.type];
    entity.index = index;
    entity.typeName = type.name;
    entity.color = type.color;
    entity.facts = [];
    entity.searchName = entity.name.toLowerCase();
    return entity;
  });
  const facts = raw.facts.map((row, index) => {
    const fact = zipRow(columns.facts, row);
    fact.index = index;
    fact.history = fact.history === null
      ? [{ from: fact.recordedAt, to: -1, status: fact.status, supersededBy: fact.supersededBy,
           reason: fact.reason, validFrom: fact.validFrom, validTo: fact.validTo }]
      : fact.history.map((version) => zipRow(columns.history, version));
    const relation = raw.relations[fact.relation];
    fact.actor = fact.actor === -1 ? null : raw.actors[fact.actor];
    fact.relationName = relation ? relation.name : null;
    fact.functional = relation ? relation.functional : false;
    fact.subjectEntity = entities[fact.subject] || null;
    fact.objectEntity = entities[fact.object] || null;
    return fact;
  });
  const contradictions = raw.contradictions.map((row, index) => {
    const contradiction = zipRow(columns.contradictions, row);
    contradiction.index = index;
    contradiction.factList = contradiction.facts.map((i) => facts[i] || null);
    return contradiction;
  });
  for (const fact of facts) {
    fact.supersededByFact = facts[fact.supersededBy] || null;
    for (const version of fact.history) version.supersededByFact = facts[version.supersededBy] || null;
    fact.contradictionList = fact.contradictions.map((i) => contradictions[i]);
    if (fact.subjectEntity) fact.subjectEntity.facts.push(fact);
    if (fact.objectEntity && fact.objectEntity !== fact.subjectEntity) fact.objectEntity.facts.push(fact);
  }
  let ledger = null;
  const decodeLedger = () => readBlock("memlens-ledger").map((row) => {
    const entry = zipRow(columns.ledger, row);
    entry.actor = entry.actor === -1 ? null : raw.actors[entry.actor];
    entry.action = raw.actions[entry.action];
    return entry;
  });
  return {
    meta: raw.meta,
    types: raw.types,
    times: raw.times,
    validTimes: raw.validTimes,
    entities,
    facts,
    contradictions,
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
