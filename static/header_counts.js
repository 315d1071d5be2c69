// The header's counts follow the view: when the page travels in time they count the memory as it
// was believed then (record time) and, with a valid time, the facts that were true then. The
// counts the build wrote are the memory now, and come back when both sliders are back.
function createHeaderCounts(memory, view, box, when) {
  const cells = new Map([...box.querySelectorAll("[data-count]")].map((cell) => [cell.dataset.count, cell.querySelector("dd")]));
  const written = new Map([...cells].map(([name, dd]) => [name, dd.textContent]));
  let shownFor = "now";

  function count() {
    const at = view.asOfRecord, validAt = view.asOfValid;
    const n = { entities: 0, facts: 0, current: 0, superseded: 0, retracted: 0, forgotten: 0, contested: 0, ledger: 0 };
    for (const entity of memory.entities) if (entityExistsAt(entity, at)) n.entities++;
    for (const fact of memory.facts) {
      const state = factStateAt(fact, at);
      if (!state) continue;
      // true at the valid time: what `--as-of-valid` returns, current or superseded values alike
      if (validAt !== null && (state.status === "forgotten" || !holdsAtValid(state, validAt))) continue;
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
