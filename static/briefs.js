// The Briefs panel: the snapshot's record of briefs given (memory.meta.briefs), newest first, a page
// at a time. A brief lists the facts it told with what became of each since (still current,
// superseded, retracted, forgotten: "was it true?"), and takes the page back to its moment: record
// time as it was when the brief was given, so the graph shows what the agent was told from.
const BRIEFS_PAGE = 50;

const NOW_SAID = { current: "still current", superseded: "superseded since", retracted: "retracted since",
                   forgotten: "forgotten since" };

function createBriefs(memory, view, nodes, travel) {
  const briefs = [...(memory.meta.briefs || [])].reverse();
  let limit = BRIEFS_PAGE;

  // The newest record time of the data at or before `at`: what the memory was when the brief was given.
  function recordIndexAt(at) {
    let low = 0, high = memory.times.length - 1, found = null;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (memory.times[middle] <= at) { found = middle; low = middle + 1; } else high = middle - 1;
    }
    return found;
  }

  function toldList(brief) {
    return el("ol", { className: "brief-facts" }, ...brief.facts.map((id) => {
      const fact = memory.factById.get(id);
      if (!fact || fact.relationName === null) {
        return el("li", null, el("code", { className: "fact-id", title: id }, shortId(id)), " ",
                  el("span", { className: "status status-forgotten" }, fact ? NOW_SAID.forgotten : "not in this memory"));
      }
      return el("li", null, el("button", { type: "button", className: "ref", "data-ref-kind": "fact", "data-ref-id": id },
                               factLabel(fact)), " ",
                el("span", { className: "status status-" + fact.status }, NOW_SAID[fact.status] || fact.status),
                fact.contested ? [" ", el("strong", { className: "tag tag-contested" }, "contested")] : null);
    }));
  }

  function row(brief) {
    const details = el("details", null, el("summary", null, plural(brief.facts.length, "fact") + ", " +
                                                     brief.chars.toLocaleString("en") + " characters"));
    details.addEventListener("toggle", () => {
      if (details.open && details.children.length === 1) details.append(toldList(brief));
    }, { once: false });
    const at = recordIndexAt(brief.at);
    const back = el("button", { type: "button", className: "button-quiet brief-travel", "data-at": brief.at },
                    "memory then");
    back.disabled = at === null;
    back.addEventListener("click", () => travel(at));
    return el("tr", { "data-brief-at": brief.at },
      el("td", { className: "time" }, shortTime(brief.at)),
      el("td", null, brief.host, brief.source ? el("span", { className: "muted" }, " (" + brief.source + ")") : null),
      el("td", null, brief.session ? el("code", { title: brief.session }, clip(brief.session, 24)) : el("span", { className: "muted" }, "\u2014")),
      el("td", null, details),
      el("td", null, back));
  }

  function render() {
    if (nodes.panel.hidden) return;
    const shown = Math.min(limit, briefs.length);
    nodes.body.replaceChildren(...briefs.slice(0, shown).map(row));
    nodes.count.textContent = (shown < briefs.length ? "Showing the newest " + shown.toLocaleString("en") + " of " : "")
      + plural(briefs.length, "brief") + " given";
    nodes.more.hidden = shown >= briefs.length;
  }

  nodes.more.addEventListener("click", () => { limit += BRIEFS_PAGE; render(); });
  return { render };
}
