// The header's counts follow the view: when the page travels in time they count the memory as it
// was believed then (record time) and, with a valid time, the facts that were true then. The
// counts the build wrote are the memory now, and come back when both sliders are back.

// How many of a list of [from, to) record-time intervals (to -1: still open) hold at `at`: those begun
// by then less those ended by then. A record-time move counted every fact of the memory (300,000 at
// 100,000 entities: 30-50 ms of an as-of change); two binary searches answer it.
function intervalCounter() {
  const starts = [], ends = [];
  return {
    add(from, to) {
      if (to !== -1 && to <= from) return; // holds at no time
      starts.push(from);
      if (to !== -1) ends.push(to);
    },
    finish() {
      const begun = Float64Array.from(starts).sort(), ended = Float64Array.from(ends).sort();
      return (at) => atOrBefore(begun, at) - atOrBefore(ended, at);
    },
  };
}

// How many of the sorted `values` are <= `at`.
function atOrBefore(values, at) {
  let low = 0, high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle] <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}

// The counts at a record time, as the walk over every fact finds them, from intervals read once:
// a fact's versions by status, entities from creation to merge, ledger rows from their time on.
// Contested is looked at only for the facts that were ever in a contradiction.
function recordTimeCounts(memory) {
  const byStatus = {};
  const disputed = [];
  for (const fact of memory.facts) {
    for (const version of fact.history) {
      (byStatus[version.status] || (byStatus[version.status] = intervalCounter())).add(version.from, version.to);
    }
    if (fact.contradictionList.length) disputed.push(fact);
  }
  const entities = intervalCounter(), observations = intervalCounter();
  for (const entity of memory.entities) (entity.observation === null ? entities : observations).add(entity.createdAt, entity.mergedAt);
  const statuses = Object.keys(byStatus).map((status) => [status, byStatus[status].finish()]);
  const entitiesAt = entities.finish(), observationsAt = observations.finish();
  let ledgerAt = null;
  return (at) => {
    const n = { entities: entitiesAt(at), observations: observationsAt(at), facts: 0, current: 0, superseded: 0,
                retracted: 0, forgotten: 0, contested: 0, ledger: 0 };
    for (const [status, countAt] of statuses) {
      const count = countAt(at);
      n.facts += count;
      if (status in n) n[status] += count;
    }
    for (const fact of disputed) {
      const state = factStateAt(fact, at);
      if (state && state.status !== "forgotten" && openContradictionsAt(fact, at).length > 0) n.contested++;
    }
    if (!memory.ledger) n.ledger = undefined; // its block is read first (see render)
    else {
      if (ledgerAt === null) ledgerAt = Float64Array.from(memory.ledger, (row) => row.at).sort();
      n.ledger = atOrBefore(ledgerAt, at);
    }
    return n;
  };
}

function createHeaderCounts(memory, view, box, when) {
  const cells = new Map([...box.querySelectorAll("[data-count]")].map((cell) => [cell.dataset.count, cell.querySelector("dd")]));
  const written = new Map([...cells].map(([name, dd]) => [name, dd.textContent]));
  let shownFor = "now";
  let countsAt = null; // recordTimeCounts, made on the first move of the record time alone

  function count() {
    const at = view.asOfRecord, validAt = view.asOfValid;
    if (at !== null && validAt === null) return (countsAt || (countsAt = recordTimeCounts(memory)))(at);
    const n = { entities: 0, observations: 0, facts: 0, current: 0, superseded: 0, retracted: 0, forgotten: 0, contested: 0, ledger: 0 };
    for (const entity of memory.entities) if (entityExistsAt(entity, at)) n[entity.observation === null ? "entities" : "observations"]++;
    for (const fact of memory.facts) {
      const state = factStateAt(fact, at);
      if (!state) continue;
      // true at the valid time: what `--as-of-valid` returns, current or superseded values alike
      if (validAt !== null && (state.status === "forgotten" || movedByMerge(fact, at) || !holdsAtValid(state, validAt))) continue;
      n.facts++;
      if (state.status in n) n[state.status]++;
      if (state.status !== "forgotten" && (at === null ? fact.contested : openContradictionsAt(fact, at).length > 0)) n.contested++;
    }
    if (at === null) n.ledger = null; // the whole ledger, as written: no need to decode it
    else if (!memory.ledger) n.ledger = undefined; // its block is read first (see render)
    else for (const row of memory.ledger) if (row.at <= at) n.ledger++;
    return n;
  }

  function render() {
    const key = view.asOfRecord + "|" + view.asOfValid;
    if (key === shownFor) return;
    shownFor = key;
    const travelling = view.asOfRecord !== null || view.asOfValid !== null;
    const n = travelling ? count() : null;
    if (n && n.ledger === undefined) {
      memory.loadLedger().then(() => { shownFor = null; render(); }, () => {}); // provenance says why it failed
    }
    for (const [name, dd] of cells) {
      dd.textContent = !n || n[name] === null ? written.get(name) : n[name] === undefined ? "\u2026" : n[name].toLocaleString("en");
    }
    const parts = [];
    if (view.asOfRecord !== null) parts.push("as believed at " + shortTime(memory.times[view.asOfRecord]));
    if (view.asOfValid !== null) parts.push("facts true at " + view.asOfValid);
    when.hidden = !travelling;
    when.textContent = parts.join(" \u00b7 ");
  }

  return { render };
}
