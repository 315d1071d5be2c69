// Entity search: a combobox over every entity (drawn or not). Enter picks, Escape closes.
const SEARCH_RESULTS = 12;

function createSearch(memory, input, list, onPick) {
  let matches = [];
  let active = -1;

  function rank(query) {
    const q = foldName(query);
    if (!q) return [];
    const scored = [];
    for (const entity of memory.entities) {
      const at = entity.searchName.indexOf(q);
      const idMatch = q.length >= 4 && entity.id.startsWith(q);
      if (at === -1 && !idMatch) continue;
      const score = entity.searchName === q ? 0 : at === 0 || idMatch ? 1 : 2;
      scored.push([score, entity.mergedInto === -1 ? 0 : 1, -entity.degree, entity.name, entity]);
    }
    scored.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0));
    return scored.slice(0, SEARCH_RESULTS).map((s) => s[4]);
  }

  function open(isOpen) {
    list.hidden = !isOpen;
    input.setAttribute("aria-expanded", String(isOpen));
  }

  function paint() {
    list.replaceChildren(...matches.map((entity, i) => {
      const swatch = el("span", { className: "swatch-dot", "aria-hidden": "true" });
      swatch.style.backgroundColor = entity.color;
      const option = el("li", { role: "option", id: "search-option-" + i, className: "search-option",
                                "aria-selected": String(i === active) },
        swatch, el("span", { className: "option-name" }, entity.name),
        el("span", { className: "option-type" }, entity.mergedInto === -1 ? entity.typeName : "merged"));
      option.addEventListener("mousedown", (event) => { event.preventDefault(); pick(entity); });
      return option;
    }));
    if (!matches.length && input.value.trim()) list.append(el("li", { className: "search-empty" }, "No entity matches"));
    if (active >= 0) input.setAttribute("aria-activedescendant", "search-option-" + active);
    else input.removeAttribute("aria-activedescendant");
    open(Boolean(input.value.trim()));
  }

  function pick(entity) {
    open(false);
    input.value = entity.name;
    onPick(entity);
  }

  input.addEventListener("input", () => { matches = rank(input.value); active = matches.length ? 0 : -1; paint(); });
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
  if (document.activeElement === input && input.value.trim()) {
    matches = rank(input.value);
    active = matches.length ? 0 : -1;
    paint();
  }
  return { focus: () => input.focus(), rank };
}
