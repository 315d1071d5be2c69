// The tip a link of the graph shows while the pointer is on it, or while the keyboard is on the
// entity at its other end (graph_keys.js): the fact in a few lines, relation, description,
// evidence, validity and status. It lies over the graph's frame and takes no pointer events.
const TIP_DESCRIPTION_WORDS = 40;
const TIP_EVIDENCE = 3;

function createFactTip(memory, view, frame) {
  const tip = el("div", { className: "fact-tip", id: "fact-tip", role: "tooltip", hidden: true });
  frame.append(tip);
  let shownFact = null;

  function body(fact, others) {
    const look = factAppearance(fact, view);
    const state = look.state || fact;
    const evidence = fact.evidence === null ? null : fact.evidence.length
      ? el("ul", { className: "tip-evidence" }, fact.evidence.slice(0, TIP_EVIDENCE).map((text) => el("li", null, text)),
           fact.evidence.length > TIP_EVIDENCE ? el("li", { className: "muted" }, "+" + (fact.evidence.length - TIP_EVIDENCE) + " more") : null)
      : el("p", { className: "tip-none" }, "no evidence recorded");
    return [
      el("p", { className: "tip-line" }, entityName(fact.subjectEntity), " ",
         el("span", { className: "fact-relation" }, fact.relationName), " ", entityName(fact.objectEntity)),
      el("p", { className: "fact-badges" }, statusBadges(fact, look)),
      fact.description === null ? el("p", { className: "muted" }, "\u2026")
        : fact.description ? el("p", { className: "tip-description" }, firstWords(fact.description, TIP_DESCRIPTION_WORDS)) : null,
      evidence,
      el("p", { className: "fact-meta" }, el("span", null, validityText(state)),
         el("span", null, "recorded " + shortTime(memory.times[fact.recordedAt]))),
      others ? el("p", { className: "tip-more muted" }, plural(others, "more link") + " between them: see the panel") : null,
    ];
  }

  // Shows `fact` by the point (x, y) of the frame; `others`: how many more facts the link stands for.
  function show(fact, x, y, others = 0) {
    shownFact = fact;
    tip.replaceChildren(...body(fact, others).filter(Boolean));
    tip.hidden = false;
    const room = frame.getBoundingClientRect(), box = tip.getBoundingClientRect();
    const left = Math.max(4, Math.min(x + 14, room.width - box.width - 4));
    const top = y + 18 + box.height <= room.height - 4 ? y + 18 : Math.max(4, y - box.height - 12);
    tip.style.left = left + "px"; // CSSOM, which the CSP allows
    tip.style.top = top + "px";
  }

  function hide() {
    shownFact = null;
    tip.hidden = true;
  }

  return { show, hide, shown: () => shownFact, element: tip };
}
