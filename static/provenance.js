// The ledger as a filterable table, newest first, rendered a page at a time. Rendered only while
// its tab is shown: the ledger of a large memory is hundreds of thousands of rows, and neither
// decoding them nor filtering them belongs in the first draw or in every as-of change. Its block
// is read the first time the tab is shown (asynchronously: render() runs again once it is read).
const LEDGER_PAGE = 100;

function createProvenance(memory, view, nodes) {
  let limit = LEDGER_PAGE;
  let filled = false;
  const fill = (select, values) => select.append(...values.map((v) => el("option", { value: v }, v)));

  function matchesTarget(row, needle) {
    if (!needle) return true;
    return row.targets.some((ref) => {
      const target = refTarget(memory, ref);
      if (target.kind === "entity") return target.item.searchName.includes(needle) || target.item.id.startsWith(needle);
      if (target.kind === "fact") return target.item.id.startsWith(needle) || factLabel(target.item).toLowerCase().includes(needle);
      if (target.kind === "contradiction") return target.item.id.startsWith(needle);
      return String(target.item).startsWith(needle);
    });
  }

  function rows() {
    const actor = nodes.actor.value, action = nodes.action.value;
    const needle = nodes.target.value.trim().toLowerCase();
    const upTo = nodes.asOf.checked && view.asOfRecord !== null ? view.asOfRecord : null;
    const out = [];
    for (let i = memory.ledger.length - 1; i >= 0; i--) {
      const row = memory.ledger[i];
      if (actor && row.actor !== actor) continue;
      if (action && row.action !== action) continue;
      if (upTo !== null && row.at > upTo) continue;
      if (!matchesTarget(row, needle)) continue;
      out.push(row);
    }
    return out;
  }

  function render() {
    if (nodes.panel.hidden) return;
    if (!memory.ledger) {
      nodes.count.textContent = "Reading the ledger\u2026";
      memory.loadLedger().then(render, (error) => {
        nodes.count.textContent = "The ledger could not be read: " + error.message;
      });
      return;
    }
    if (!filled) {
      fill(nodes.actor, [...new Set(memory.ledger.map((r) => r.actor))].sort());
      fill(nodes.action, [...new Set(memory.ledger.map((r) => r.action))].sort());
      filled = true;
    }
    const matching = rows();
    nodes.body.replaceChildren(...matching.slice(0, limit).map((row) => el("tr", null,
      el("td", { className: "num" }, String(row.seq)),
      el("td", { className: "time" }, shortTime(memory.times[row.at])),
      el("td", { className: "actor" }, row.actor),
      el("td", null, el("span", { className: "badge badge-" + row.action }, row.action)),
      refCell(memory, row.targets, row.action))));
    const total = memory.ledger.length;
    const shown = Math.min(limit, matching.length);
    const of = matching.length === total ? plural(total, "entry", "entries")
      : plural(matching.length, "matching entry", "matching entries") + " (of " + total.toLocaleString("en") + ")";
    nodes.count.textContent = (shown < matching.length ? "Showing the newest " + shown.toLocaleString("en") + " of " : "") + of;
    nodes.more.hidden = shown >= matching.length;
    nodes.more.textContent = "Show " + Math.min(LEDGER_PAGE * 5, matching.length - shown).toLocaleString("en") + " more";
  }

  const rerender = () => { limit = LEDGER_PAGE; render(); };
  nodes.actor.addEventListener("change", rerender);
  nodes.action.addEventListener("change", rerender);
  nodes.target.addEventListener("input", rerender);
  nodes.asOf.addEventListener("change", rerender);
  nodes.form.addEventListener("submit", (event) => event.preventDefault());
  nodes.more.addEventListener("click", () => { limit += LEDGER_PAGE * 5; render(); });
  return { render };
}
