// The maintenance panel: the build rendered each kind's first rows; "Show more" pages in the next
// rows of that group from the memlens-maintenance block (read on the first click, not before the
// first draw), MAINTENANCE_PAGE at a time, so no click renders the 30,000 rows of a memory without
// evidence at once.
const MAINTENANCE_PAGE = 100;
const REASON = "'...'"; // the reader writes the reason in: the rest of each command is exact

// A worklist row as a task: a plain sentence and the commands that settle it, as
// viewer/model/worklist.py's task_of words the rows the build rendered (tests hold one to the other).
function shellQuoted(text) {   // shlex.quote: viewer/model/printed_commands.py shell_quoted
  return text && /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\"'\"'") + "'";
}

// The flag naming the dataset, which every command carries (printed_commands.dataset_flag).
function flagWords(meta) {
  const flag = meta && meta.dataset_flag;
  const named = flag !== null && typeof flag === "object" && (flag.option === "-d" || flag.option === "--db")
    && typeof flag.value === "string" && flag.value !== "";
  return named ? " " + flag.option + " " + shellQuoted(flag.value) : "";
}

function listed(words) {
  return words.length === 1 ? words[0] : words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
}

function taskOf(memory, kind, key, summary, refs) {
  const targets = refs.map((ref) => refTarget(memory, ref));
  const id = (i) => (targets[i].item && targets[i].item.id) || String(targets[i].item);
  const name = (i) => (targets[i].kind === "entity" ? targets[i].item.name : "(forgotten)");
  const words = (i) => {
    const fact = targets[i].kind === "fact" ? targets[i].item : null;
    return fact && fact.relationName !== null && fact.subjectEntity && fact.objectEntity
      ? [fact.subjectEntity.name, fact.relationName, fact.objectEntity.name] : null;
  };
  const said = (i) => { const w = words(i); return w ? w.join(" ") : "a forgotten fact"; };
  const flag = flagWords(memory.meta);
  const run = (command) => "memlens " + command + flag;
  const dismiss = run("dismiss " + shellQuoted(key) + " --reason " + REASON);
  if (kind === "hotspot" && refs.length >= 3) {
    const parts = key.split(":");
    const relation = parts.length >= 3 ? parts.slice(2).join(":") : "?";
    const values = refs.slice(1).map((_, i) => { const w = words(i + 1); return w ? w[2] : "(forgotten)"; });
    return { sentence: name(0) + " has " + values.length + " current " + relation + " values at once: " + listed(values) + ".",
             commands: [[values[1] + " replaced " + values[0], run("supersede " + id(1).slice(0, 8) + " " + id(2).slice(0, 8) + " --reason " + REASON)],
                        ["all of them hold", dismiss]] };
  }
  if (kind === "contradiction" && refs.length >= 3) {
    const found = /^\S+ vs \S+ \((?:confidence )?([0-9.]+)\): ([\s\S]*)$/.exec(summary);
    const [confidence, reason] = found ? [found[1], found[2]] : ["?", summary];
    return { sentence: "\u201c" + said(1) + "\u201d and \u201c" + said(2) + "\u201d cannot both hold (confidence " + confidence + "): " + reason,
             commands: [["the second holds", run("supersede " + id(1).slice(0, 8) + " " + id(2).slice(0, 8) + " --reason " + REASON)],
                        ["the first holds", run("supersede " + id(2).slice(0, 8) + " " + id(1).slice(0, 8) + " --reason " + REASON)],
                        ["both hold", dismiss]] };
  }
  if (kind === "duplicate" && refs.length >= 2) {
    const names = refs.map((_, i) => name(i));
    return { sentence: listed(names) + " may be one entity.",
             commands: [["they are one: keep " + names[0], run("merge " + shellQuoted(names[0]) + " " + shellQuoted(names[1]))],
                        ["they differ", dismiss]] };
  }
  if (kind === "similar" && refs.length >= 2) {
    const [first, second] = [name(0), name(1)];
    const why = /\(([^()]*)\)$/.exec(summary);
    return { sentence: first + " and " + second + " may be one entity" + (why ? " (" + why[1] + ")" : "") + ".",
             commands: [["they are one: keep " + first, run("merge " + shellQuoted(first) + " " + shellQuoted(second))],
                        ["they are one: keep " + second, run("merge " + shellQuoted(second) + " " + shellQuoted(first))],
                        ["they differ", dismiss]] };
  }
  if (kind === "relation") {
    const relation = key.includes(":") ? key.slice(key.indexOf(":") + 1) : "?";
    return { sentence: summary + ": each spelling is a relation of its own to queries and to the order of values; "
               + "every write now stores " + relation + ".",
             commands: [["they may stay as they are", dismiss]] };
  }
  if (kind === "stale" && refs.length) {
    const cited = summary.includes(": ") ? summary.slice(summary.indexOf(": ") + 2) : summary;
    return { sentence: "\u201c" + said(0) + "\u201d: evidence changed since recorded: " + cited + ".",
             commands: [["it no longer holds", run("retract " + id(0).slice(0, 8) + " --reason " + REASON)], ["it still holds", dismiss]] };
  }
  if (kind === "unsupported" && refs.length) {
    return { sentence: "\u201c" + said(0) + "\u201d has no evidence: nobody can check where it came from.",
             commands: [["it is wrong", run("retract " + id(0).slice(0, 8) + " --reason " + REASON)], ["it is right", dismiss]] };
  }
  return { sentence: summary, commands: [["it is fine", dismiss]] };
}

// The sentence, then each command on a line of its own, selected whole by one click.
function taskCell(task) {
  return el("td", null, el("p", { className: "task-sentence" }, task.sentence),
    el("ul", { className: "task-commands" }, task.commands.map(([when, command]) =>
      el("li", null, el("span", { className: "task-when" }, "If " + when + ": "), el("code", { className: "task-command" }, command)))));
}

function createMaintenance(memory, panel) {
  const render = {
    worklist: (row, kind) => el("tr", null, taskCell(taskOf(memory, kind, row[0], row[1], row[2])), refCell(memory, row[2])),
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
    body.append(...rows.slice(shown, shown + MAINTENANCE_PAGE).map((row) => render[group.dataset.list](row, group.dataset.kind)));
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
