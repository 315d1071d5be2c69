// References as the data blocks hold them (ledger rows, maintenance rows): an entity index, a fact
// as -(its index + 1), or an id as given (a contradiction's, or one that is gone).
function refTarget(memory, ref) {
  if (typeof ref === "number" && ref >= 0) return { kind: "entity", item: memory.entities[ref] };
  if (typeof ref === "number") return { kind: "fact", item: memory.facts[-ref - 1] };
  const contradiction = memory.contradictionById.get(ref);
  if (contradiction) return { kind: "contradiction", item: contradiction };
  return { kind: "other", item: ref };
}

// Rows whose target is a name, not a record: the relation declared functional, the type added.
const NAMING_ACTIONS = { declare_functional: "relation", add_type: "type" };

// A button the page's delegated click handler follows (selects the entity or fact in place).
// `action` (a ledger row's) tells a name from an id that is gone.
function refCell(memory, refs, action) {
  return el("td", { className: "refs" }, refs.map((ref) => {
    const target = refTarget(memory, ref);
    if (target.kind === "entity") {
      return el("button", { type: "button", className: "ref ref-entity", "data-ref-kind": "entity",
                            "data-ref-id": target.item.id }, target.item.name);
    }
    if (target.kind === "fact") {
      return el("button", { type: "button", className: "ref ref-fact", "data-ref-kind": "fact",
                            "data-ref-id": target.item.id }, factLabel(target.item));
    }
    if (target.kind === "contradiction") {
      const first = target.item.factList.find(Boolean);
      return el("button", { type: "button", className: "ref ref-contradiction", "data-ref-kind": "fact",
                            "data-ref-id": first ? first.id : "" }, "contradiction " + shortId(target.item.id));
    }
    if (NAMING_ACTIONS[action]) return el("code", { className: "ref-name" }, NAMING_ACTIONS[action] + " " + target.item);
    return el("code", { className: "ref-missing", title: String(target.item) }, shortId(target.item) + " (gone)");
  }));
}
