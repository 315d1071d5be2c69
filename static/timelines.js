// The build drew the timelines as SVG; the page only moves each one's valid-time cursor.
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

// A folded timeline keeps its drawing in a <template>, outside the document: drawn on request.
function unfoldTimeline(figure, validAt) {
  const drawing = figure.querySelector("template.tl-drawing");
  if (!drawing) return;
  figure.querySelector(".tl-folded").remove();
  figure.append(drawing.content.cloneNode(true));
  drawing.remove();
  figure.classList.remove("is-folded");
  placeTimelineCursors(figure, validAt);
}
