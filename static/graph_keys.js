// The graph's own keys, while it has the focus (the zoom keys + - 0 work anywhere but in a text
// field: app.js). The arrow keys move the keyboard's cursor to the entity in their direction:
// among the selection and its drawn neighbours, or among every drawn entity when nothing is
// selected. The cursor is ringed, named in a live region, and on a neighbour of the selection the
// fact between them is shown as the tip of their link. Enter opens the cursor's entity in the
// detail panel (on the selection itself, it moves the focus to the panel); Escape clears the
// selection, or else the cursor, and the focus stays on the graph.
const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
const STEP_CONE = 2.5; // a step goes to an entity at most this many times farther across than along

function createGraphKeys(graph, view, container, announce, tip, actions) {
  let cursor = null;

  function moveTo(entity) {
    cursor = entity;
    graph.setCursor(entity);
    tip.hide();
    if (!entity) {
      announce.textContent = "";
      return;
    }
    graph.keepInView(entity);
    const said = [entity.name, entity.typeName, plural(entity.degree, "link")];
    const selected = view.selected;
    if (selected && entity !== selected) {
      const facts = graph.factsBetween(selected, entity);
      if (facts.length) {
        said.push(facts.map(factLabel).join("; "));
        const a = graph.positionOnScreen(selected), b = graph.positionOnScreen(entity);
        tip.show(facts[0], (a.x + b.x) / 2, (a.y + b.y) / 2, facts.length - 1);
      }
    }
    said.push(entity === selected ? "selected: Enter moves to its details" : "Enter opens it");
    announce.textContent = said.join(", ");
  }

  // The nearest entity from `from` in the direction (dx, dy), weighing a step across twice a step along.
  function step(from, dx, dy) {
    let best = null, bestCost = Infinity;
    for (const entity of graph.stepTargets()) {
      if (entity === from) continue;
      const x = entity.x - from.x, y = entity.y - from.y;
      const along = x * dx + y * dy, across = Math.abs(x * dy - y * dx);
      if (along <= 0 || across > STEP_CONE * along) continue;
      const cost = along + 2 * across;
      if (cost < bestCost) { best = entity; bestCost = cost; }
    }
    return best;
  }

  container.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const arrow = ARROWS[event.key];
    if (arrow) {
      event.preventDefault();
      const from = cursor && graph.isDrawn(cursor) ? cursor : view.selected;
      if (!from) moveTo(graph.rankedFirst());
      else moveTo(step(from, arrow[0], arrow[1]) || from);
    } else if (event.key === "Enter" && cursor) {
      event.preventDefault();
      if (cursor === view.selected) actions.focusPanel();
      else {
        actions.selectEntity(cursor);
        moveTo(cursor);
      }
    } else if (event.key === "Escape" && !view.selected && cursor) {
      moveTo(null);
    }
  });
  // Reached by the keyboard, the graph starts at the selection, or at the best connected entity.
  container.addEventListener("focus", () => {
    if (!cursor && container.matches(":focus-visible")) moveTo(view.selected || graph.rankedFirst());
  });
  container.addEventListener("blur", () => { if (cursor) tip.hide(); });

  return { cursor: () => cursor };
}
