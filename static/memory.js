// Reads the page's data blocks into linked objects: entities know their facts, facts know their
// ends, versions and contradictions. The blocks' format is viewer/report/codec.py's, which writes
// them (and reads them back in Python); column positions come from the data itself.
// Every record is one object literal of a fixed shape: 300,000 facts built property by property
// took most of a second longer. The facts' texts and the ledger have blocks of their own, read
// when something asks for them (memory.loadTexts(), memory.loadLedger()).
const PAGE_DATA_VERSION = "memlens-page/2";

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

function base64Bytes(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Ids come packed (codec.py _packed_ids): the base64 of each uuid's 16 bytes, and [index, id] for
// any other. They are written out as text in one buffer and decoded at once, then sliced.
const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");

function unpackIds(packed) {
  const bytes = base64Bytes(packed.uuids);
  const count = bytes.length / 16;
  const text = new Uint8Array(count * 36);
  for (let i = 0, at = 0; i < bytes.length; i++) {
    const k = i & 15;
    if (k === 4 || k === 6 || k === 8 || k === 10) text[at++] = 45; // the dashes: 8-4-4-4-12 digits
    text[at++] = HEX_DIGITS[bytes[i] >> 4];
    text[at++] = HEX_DIGITS[bytes[i] & 15];
  }
  const all = new TextDecoder().decode(text);
  const ids = new Array(count);
  for (let i = 0; i < count; i++) ids[i] = all.slice(i * 36, i * 36 + 36);
  for (const [index, id] of packed.other) ids[index] = id;
  return ids;
}

// The data of a gzip stream, inflated by the browser's own DecompressionStream (nothing is fetched,
// and no library runs) into one buffer of the size the stream's trailer gives: twice as fast as
// reading it through a Response (55 MB of facts at 100,000 entities: 0.3 s against 0.7).
async function inflate(packed) {
  const size = new DataView(packed.buffer, packed.byteOffset + packed.length - 4, 4).getUint32(0, true);
  const whole = new Uint8Array(size);
  const stream = new DecompressionStream("gzip");
  const writer = stream.writable.getWriter();
  writer.write(packed);
  writer.close();
  const reader = stream.readable.getReader();
  let at = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    if (at + part.value.length > size) throw new Error("its data is longer than its gzip trailer says");
    whole.set(part.value, at);
    at += part.value.length;
  }
  if (at !== size) throw new Error("its data is shorter than its gzip trailer says");
  return whole;
}

// A block is the base64 of gzipped JSON.
async function readBlock(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error("the page has no " + id + " block");
  const block = JSON.parse(new TextDecoder().decode(await inflate(base64Bytes(element.textContent.trim()))));
  if (block.version !== PAGE_DATA_VERSION) {
    throw new Error("its " + id + " block is " + JSON.stringify(block.version) + ", not " + PAGE_DATA_VERSION);
  }
  return block;
}

const NO_CONTRADICTIONS = Object.freeze([]);

function decodeEntities(raw) {
  const c = columnIndex(raw.columns.entities);
  const ids = unpackIds(raw.entityIds);
  return raw.entities.map((row, index) => {
    const type = raw.types[row[c.type]];
    const name = row[c.name];
    return {
      index, id: ids[index], name, type: row[c.type], description: row[c.description],
      createdAt: row[c.createdAt], updatedAt: row[c.updatedAt], mergedInto: row[c.mergedInto],
      mergedAt: row[c.mergedAt], x: row[c.x], y: row[c.y], degree: row[c.degree],
      page: c.page === undefined ? undefined : row[c.page],
      // an observation's place in its entity's list (null: an entity); a page from before observations has none
      observation: c.observation === undefined ? null : row[c.observation],
      observationFact: null, // an observation's: the fact that notes it on its entity (loadMemory)
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
  return unpackIds(c.ids).map((id, index) => {
    const relation = raw.relations[c.relation[index]];
    const actor = c.actor[index];
    const fact = {
      index, id, subject: c.subject[index], relation: c.relation[index], object: c.object[index],
      status: c.status[index], supersededBy: c.supersededBy[index], reason: c.reason[index],
      contested: c.contested[index], validFrom: c.validFrom[index], validTo: c.validTo[index],
      recordedAt: c.recordedAt[index], retiredAt: c.retiredAt[index], actor: actor === -1 ? null : raw.actors[actor],
      description: null, evidence: null, // read after the first draw: see loadTexts
      reassertions: c.reassertions[index], history: null, contradictions: c.contradictions[index],
      origin: c.origin ? c.origin[index] : null, // [bundle, dataset, recorded there]: a fact a merge brought
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

// One array per field, like the facts: seq as steps from the row before, and row i's references
// the refsCount[i] entries of refs after those of the rows before it. A row about a relation or a
// type has none: its targets are the name its payload gives (viewer/model/ledger_targets.py row_targets).
function decodeLedger(raw, c) {
  let seq = 0;
  let end = 0;
  return c.seqStep.map((step, i) => {
    const start = end;
    seq += step;
    end += c.refsCount[i];
    const action = c.action[i] === -1 ? null : raw.actions[c.action[i]];
    const refs = c.refs.slice(start, end);
    return { seq, at: c.at[i], actor: c.actor[i] === -1 ? null : raw.actors[c.actor[i]], action, refs,
             targets: refs.length ? refs : namedTarget(action, c.payload[i]) }; // what the ledger table shows
  });
}

function namedTarget(action, payload) {
  const key = NAMING_ACTIONS[action];
  const name = key && payload && typeof payload === "object" && !Array.isArray(payload) ? payload[key] : null;
  return name ? [String(name)] : [];
}

// The maintenance panel's groups list their rows by index (codec.py maintenance_groups); a row is
// built from the worklist or dismissal columns of the memlens-maintenance block as the panel shows
// it: [key, summary, refs] and [key, reason, actor, at].
function decodeMaintenance(raw) {
  const w = raw.worklist, d = raw.dismissals;
  const text = (value) => (value === null || value === undefined ? "" : String(value));
  const refStarts = [];
  w.refsCount.reduce((at, count) => { refStarts.push(at); return at + count; }, 0);
  const rowOf = {
    worklist: (i) => [String(w.key[i]), text(w.summary[i]), w.refs.slice(refStarts[i], refStarts[i] + w.refsCount[i])],
    dismissals: (i) => [String(d.key[i]), text(d.reason[i]), text(d.actor[i]), text(d.at[i])],
  };
  const groups = {};
  for (const list of ["worklist", "dismissals"]) {
    groups[list] = raw.maintenance[list].map(([kind, indexes]) => [kind, indexes.map(rowOf[list])]);
  }
  return groups;
}

async function loadMemory() {
  const [raw, factBlock] = await Promise.all([readBlock("memlens-data"), readBlock("memlens-facts")]);
  const columns = raw.columns;
  const entities = decodeEntities(raw);
  const facts = decodeFacts(raw, factBlock, entities);
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
    if (notesObservation(fact)) fact.objectEntity.observationFact = fact;
  }
  let ledger = null;
  let ledgerRead = null;
  let textsRead = null;
  let maintenanceRead = null;
  return {
    meta: raw.meta,
    types: raw.types,
    times: raw.times,
    validTimes: raw.validTimes,
    entities,
    facts,
    contradictions,
    // [kind, rows] pairs for the worklist and the dismissals, read the first time a group pages in
    loadMaintenance() {
      maintenanceRead = maintenanceRead || readBlock("memlens-maintenance").then(decodeMaintenance);
      return maintenanceRead;
    },
    // the facts' descriptions and evidence (null until read), which only the detail panel shows
    loadTexts() {
      textsRead = textsRead || readBlock("memlens-texts").then((texts) => {
        facts.forEach((fact, i) => {
          fact.description = texts.description[i];
          fact.evidence = texts.evidence[i];
        });
      });
      return textsRead;
    },
    get ledger() { return ledger; }, // null until loadLedger() has read it
    loadLedger() {
      ledgerRead = ledgerRead || readBlock("memlens-ledger").then((c) => (ledger = decodeLedger(raw, c)));
      return ledgerRead;
    },
    overview: raw.overview.map((i) => entities[i]),
    drawLimit: raw.drawLimit,
    showSuperseded: raw.showSuperseded,
    entityById: new Map(entities.map((e) => [e.id, e])),
    factById: new Map(facts.map((f) => [f.id, f])),
    contradictionById: new Map(contradictions.map((c) => [c.id, c])),
  };
}

// Whether a fact notes an observation on its entity: listed with the entity's observations, never
// drawn as a link (store/observations.py says what an observation is).
function notesObservation(fact) {
  return Boolean(fact.objectEntity && fact.objectEntity.observation !== null && fact.subjectEntity
                 && fact.subjectEntity.observation === null);
}

function entityName(entity) {
  return entity ? entity.name : "(forgotten entity)";
}

function factLabel(fact) {
  if (!fact) return "(unknown fact)";
  if (fact.status === "forgotten" || fact.relationName === null) return "forgotten fact (text erased)";
  return entityName(fact.subjectEntity) + " " + fact.relationName + " " + entityName(fact.objectEntity);
}

// The entities linked to `entity` (its observations are none: they are listed, never drawn).
function neighboursOf(entity) {
  const seen = new Set();
  for (const fact of entity.facts) {
    for (const end of [fact.subjectEntity, fact.objectEntity]) {
      if (end && end !== entity && end.observation === null) seen.add(end);
    }
  }
  return [...seen];
}
