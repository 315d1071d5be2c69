// Reads the page's data blocks into linked objects: entities know their facts, facts know their
// ends, versions and contradictions. Column positions come from the data itself (see payload.py).
// Every record is one object literal of a fixed shape: 300,000 facts built property by property
// took most of a second longer. The ledger has a block of its own and is decoded the first time
// something reads it.
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
      typeName: type.name, color: type.color, facts: [], searchName: name.toLowerCase(),
    };
  });
}

function decodeVersion(c, row) {
  return { from: row[c.from], to: row[c.to], status: row[c.status], supersededBy: row[c.supersededBy],
           reason: row[c.reason], validFrom: row[c.validFrom], validTo: row[c.validTo], supersededByFact: null };
}

function decodeFacts(raw, rows, entities) {
  const c = columnIndex(raw.columns.facts);
  const h = columnIndex(raw.columns.history);
  return rows.map((row, index) => {
    const relation = raw.relations[row[c.relation]];
    const actor = row[c.actor];
    const fact = {
      index, id: row[c.id], subject: row[c.subject], relation: row[c.relation], object: row[c.object],
      status: row[c.status], supersededBy: row[c.supersededBy], reason: row[c.reason],
      contested: row[c.contested], validFrom: row[c.validFrom], validTo: row[c.validTo],
      recordedAt: row[c.recordedAt], retiredAt: row[c.retiredAt], actor: actor === -1 ? null : raw.actors[actor],
      description: row[c.description], evidence: row[c.evidence], links: row[c.links],
      reassertions: row[c.reassertions], history: null, contradictions: row[c.contradictions],
      relationName: relation ? relation.name : null, functional: relation ? relation.functional : false,
      subjectEntity: entities[row[c.subject]] || null, objectEntity: entities[row[c.object]] || null,
      supersededByFact: null, contradictionList: NO_CONTRADICTIONS,
      curve: 0, // how far its edge bends away from parallel ones (graph_view.js)
    };
    const versions = row[c.history];
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
