// The site's own pages read without script; this only adds a filter to the entity list, lets a
// timeline row jump to its fact's card, and hands the header's search to the graph page.
document.documentElement.classList.add("js");

function wireEntityFilter() {
  const input = document.getElementById("entity-filter");
  if (!input) return;
  const rows = [...document.querySelectorAll("#entity-rows tr")];
  const count = document.getElementById("entity-filter-count");
  input.addEventListener("input", () => {
    const needle = input.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const hit = !needle || row.dataset.filter.includes(needle);
      row.hidden = !hit;
      if (hit) shown++;
    }
    count.textContent = needle ? plural(shown, "entity", "entities") + " match" : "";
  });
}

// A row's card may be on one of the entity's other pages: then the graph page finds it.
function wireTimelineRows() {
  for (const row of document.querySelectorAll(".timeline .tl-row[data-fact]")) {
    row.addEventListener("click", () => {
      const id = row.dataset.fact;
      if (document.getElementById("fact-" + id)) location.hash = "fact-" + id;
      else location.href = "../index.html#fact=" + encodeURIComponent(id);
    });
  }
}

// The words go to the graph page, which holds the memory's data and answers them (#search=...).
function wireSiteSearch() {
  const input = document.getElementById("site-search");
  if (!input) return;
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !input.value.trim()) return;
    event.preventDefault();
    location.href = input.dataset.graph + "#search=" + encodeURIComponent(input.value.trim());
  });
}

wireEntityFilter();
wireTimelineRows();
wireSiteSearch();
