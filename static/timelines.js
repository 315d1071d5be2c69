// The build drew the timelines as SVG; the page moves each one's valid-time cursor and, at a past
// record time, fades the rows of facts not recorded yet then.
function dayNumber(iso) {
  const text = String(iso);
  const ms = Date.parse(text.length === 10 ? text + "T00:00:00Z" : text);
  return Number.isNaN(ms) ? null : ms / 86400000;
}

function placeTimelineCursors(root, validAt) {
  const day = validAt === null ? null : dayNumber(validAt);
  for (const svg of root.querySelectorAll("svg.timeline-svg")) {
    const cursor = svg.querySelector(".tl-cursor");
    if (!cursor) continue;
    let x = -10;
    if (day !== null) {
      const start = Number(svg.dataset.start), end = Number(svg.dataset.end);
      const left = Number(svg.dataset.plotLeft), right = Number(svg.dataset.plotRight);
      if (day >= start && day <= end) x = left + (day - start) / (end - start) * (right - left);
    }
    cursor.setAttribute("x1", String(x));
    cursor.setAttribute("x2", String(x));
  }
}

// Rows of facts the chosen record time `at` did not know yet are faded and say so; null: now.
function markTimelineRows(root, memory, at) {
  for (const row of root.querySelectorAll(".timeline .tl-row[data-fact]")) {
    const fact = memory.factById.get(row.dataset.fact);
    const unknown = at !== null && Boolean(fact) && factStateAt(fact, at) === null;
    if (row.classList.contains("is-unrecorded") === unknown) continue;
    row.classList.toggle("is-unrecorded", unknown);
    let note = row.querySelector("title.tl-unrecorded");
    if (unknown && !note) row.prepend(note = svgEl("title", { className: "tl-unrecorded" }, "not recorded yet at the chosen record time"));
    else if (!unknown && note) note.remove();
  }
}

// A folded timeline's drawing waits in the memlens-timelines block (markup the build wrote and
// escaped, as it wrote the rest of the page), read once, on the first unfold. DOMParser parses it as
// the page's own markup is parsed, in a document where nothing runs; the nodes then move here.
let drawingsRead = null;

async function unfoldTimeline(figure, view, memory) {
  const button = figure.querySelector(".tl-folded");
  if (!button) return;
  drawingsRead = drawingsRead || readBlock("memlens-timelines").then((block) => block.drawings);
  let markup;
  try {
    markup = (await drawingsRead)[figure.id];
    if (markup === undefined) throw new Error("the page holds no drawing of it");
  } catch (error) {
    button.textContent = "This timeline could not be drawn (" + String(error && error.message || error) + ").";
    return;
  }
  if (!figure.contains(button)) return; // unfolded meanwhile
  const parsed = new DOMParser().parseFromString(markup, "text/html");
  button.remove();
  figure.append(...parsed.body.childNodes);
  figure.classList.remove("is-folded");
  placeTimelineCursors(figure, view.asOfValid);
  markTimelineRows(figure, memory, view.asOfRecord);
}
