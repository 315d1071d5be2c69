// The maintenance panel: the build rendered each kind's first rows; "Show more" pages in the next
// rows of that group from the memlens-maintenance block (read on the first click, not before the
// first draw), MAINTENANCE_PAGE at a time, so no click renders the 30,000 rows of a memory without
// evidence at once.
const MAINTENANCE_PAGE = 100;

function createMaintenance(memory, panel) {
  const render = {
    worklist: (row) => el("tr", null,
      el("td", null, row[1], el("div", { className: "key-text" }, row[0])),
      refCell(memory, row[2])),
    dismissals: (row) => el("tr", null,
      el("td", null, el("div", { className: "key-text" }, row[0])),
      el("td", null, row[1]),
      el("td", { className: "actor" }, row[2]),
      el("td", { className: "time" }, el("time", { datetime: row[3] }, shortTime(row[3])))),
  };

  async function rowsOf(group) {
    const lists = await memory.loadMaintenance();
    const found = lists[group.dataset.list].find(([kind]) => kind === group.dataset.kind);
    return found ? found[1] : [];
  }

  async function showMore(group) {
    const button = group.querySelector(".maint-show-more");
    button.disabled = true; // one page at a time, however fast the clicks
    let rows;
    try {
      rows = await rowsOf(group);
    } catch (error) {
      group.querySelector(".maint-more").firstChild.textContent =
        "The rest could not be read (" + String(error && error.message || error) + "). ";
      return;
    } finally {
      button.disabled = false;
    }
    const body = group.querySelector("tbody");
    const shown = body.rows.length;
    body.append(...rows.slice(shown, shown + MAINTENANCE_PAGE).map(render[group.dataset.list]));
    const note = group.querySelector(".maint-more");
    const now = body.rows.length;
    note.firstChild.textContent = now.toLocaleString("en") + " of " + rows.length.toLocaleString("en") + " shown. ";
    button.hidden = now >= rows.length;
  }

  for (const button of panel.querySelectorAll(".maint-show-more")) {
    button.hidden = false;
    button.textContent = "Show " + MAINTENANCE_PAGE + " more";
    button.addEventListener("click", () => showMore(button.closest(".maint-group")));
  }
}
