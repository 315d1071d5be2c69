"""Recall benchmark (opt-in): how often recall puts the answering fact among the first five.

    python benchmarks/bench_recall.py [--corpus FILE] [--memoose-venv DIR] [--show-misses]

The corpus (benchmarks/recall_corpus.json) is a small payments team's memory: entities with their
descriptions, facts (one of them superseded since), and questions written as an agent asks them,
each with the facts that answer it. A second one, recall_corpus_mobile.json (a mobile app team),
was written after recall's rules were settled, to check they were not fitted to the first;
recall_corpus_hubs.json holds entities of 20-26 facts each, and recall_corpus_studio.json was
written before recall's table of wordings (benchmarks/README.md). A question is "far" when it holds a word its answering fact
does not (as written: a stem or an entity's description must bridge it); the script counts them.
For memlens and, when memoose 0.6.0 is installed (in the venv given with --memoose-venv, or in this
environment; never install it into memlens's), for memoose given the same entities and facts: recall@5
(the share of questions with an answering fact among the first five), MRR (the mean of 1/rank of the
first answering fact, 0 past the twentieth) and the time of one recall (median and 95th percentile,
in process). Target (issue 37): recall@5 at least 0.97 and MRR at least 0.90 on every corpus, and
at least memoose's.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memlens.store import recall
from memlens.store.db import read
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.pages import Page
from memlens.store.words import content_words, words

CORPUS = Path(__file__).resolve().parent / "recall_corpus.json"
DEPTH = 20   # MRR counts an answer up to this rank
TARGET = 0.97       # recall@5, on every corpus (issue 37)
MRR_TARGET = 0.90


def triple(subject: str, relation: str, object_: str) -> str:
    return f"{subject} {relation} {object_}"


def far_questions(corpus: dict) -> int:
    """Questions holding a word (not a stop word) that none of their answering facts holds as written."""
    text = {triple(*f[:3]): set(words(" ".join(f[:5]))) for f in corpus["facts"]}
    return sum(1 for question, answers in corpus["questions"]
               if any(set(content_words(question)) - text[a] for a in answers))


def memlens_rankings(corpus: dict, home: Path) -> tuple[list[list[str]], list[float]]:
    rankings, timings = [], []
    with Memory(home / "recall.sqlite", actor="bench") as memory:
        types = {name: type_ for name, type_, _ in corpus["entities"]}
        by_triple = {}
        for subject, relation, object_, description, evidence, *status in corpus["facts"]:
            # the corpus names its entities on purpose ("warehouse" beside "warehouse-loader")
            [outcome] = memory.remember([FactInput(subject, relation, object_, types[subject], types[object_],
                                                   description, (evidence,))], new=True)
            by_triple[triple(subject, relation, object_)] = (outcome.fact_id, status)
        for name, _, description in corpus["entities"]:
            memory.describe(name, description)
        for key, (fact_id, status) in by_triple.items():
            if status == ["superseded"]:
                successor = next(fid for k, (fid, s) in by_triple.items()
                                 if k.split()[:2] == key.split()[:2] and not s and k != key)
                memory.supersede(fact_id, successor, "replaced")
        for question, _ in corpus["questions"]:
            started = time.perf_counter()
            with read(memory.conn) as conn:
                found = recall.recall(conn, question, Page(DEPTH))
            timings.append((time.perf_counter() - started) * 1000)
            rankings.append([triple(f["subject_name"], f["relation"], f["object_name"]) for f in found["facts"]["items"]])
    return rankings, timings


# Runs in memoose's interpreter: the corpus in, each question's ranked triples and times out.
MEMOOSE_CHILD = r'''
import json, sys, time
from memoose import Engine, EntityIn, RelationIn
from memoose.store.embeddings import HashEmbedder
corpus = json.load(open(sys.argv[1]))
ds = Engine(embedder=HashEmbedder()).dataset()
# memlens's default types, as memoose's ontology names them
types = {"Service": "System", "Environment": "System", "Tool": "Technology", "Library": "Technology",
         "Dataset": "Technology", "Module": "Component", "File": "Component", "Function": "Component",
         "Endpoint": "Component", "Config": "Concept", "Team": "Organization", "Repository": "Project",
         "Task": "Issue", "Bug": "Issue", "Document": "Topic"}
entities = [EntityIn(name=n, type=types.get(t, t), description=d) for n, t, d in corpus["entities"]]
ids = {}
for f in corpus["facts"]:
    subject, relation, object_, description, evidence, *status = f
    r = ds.remember(entities if not ids else [], [RelationIn(source=subject, name=relation, target=object_,
                    description=description, evidence=evidence)])
    ids[(subject, relation, object_)] = (r["relations"][0]["id"], status)
for (s, rel, o), (rid, status) in ids.items():
    if status == ["superseded"]:
        successor = next(i for (s2, rel2, o2), (i, st) in ids.items() if (s2, rel2) == (s, rel) and not st and o2 != o)
        ds.supersede(rid, successor, "replaced")
out = []
for question, _ in corpus["questions"]:
    started = time.perf_counter()
    found = ds.recall(question, limit=%d)
    ms = (time.perf_counter() - started) * 1000
    out.append({"ms": ms, "ranked": [f"{x['source']} {x['relation']} {x['target']}" for x in found.get("facts", [])]})
print(json.dumps(out))
''' % DEPTH


def memoose_python(venv: Path | None) -> list[str] | None:
    if venv is not None:
        python = venv / "bin" / "python"
        if not python.exists():
            sys.exit(f"--memoose-venv {venv}: no bin/python there")
        return [str(python)]
    return [sys.executable] if importlib.util.find_spec("memoose") is not None else None


def memoose_rankings(python: list[str], home: Path, corpus: Path) -> tuple[list[list[str]], list[float]]:
    child = home / "memoose_child.py"
    child.write_text(MEMOOSE_CHILD)
    data = home / "memoose-data"
    env = {"HOME": str(home), "MEMOOSE_DATA_DIR": str(data), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(python + [str(child), str(corpus)], capture_output=True, text=True, env=env, cwd=home,
                          check=False)
    if done.returncode != 0:
        sys.exit(f"memoose failed:\n{done.stderr[-2000:]}")
    results = json.loads(done.stdout.strip().splitlines()[-1])
    return [r["ranked"] for r in results], [r["ms"] for r in results]


def scores(corpus: dict, rankings: list[list[str]]) -> dict:
    hits, reciprocal, misses = 0, 0.0, []
    for (question, answers), ranked in zip(corpus["questions"], rankings):
        ranks = [ranked.index(a) + 1 for a in answers if a in ranked[:DEPTH]]
        first = min(ranks, default=None)
        hits += first is not None and first <= 5
        reciprocal += 1 / first if first else 0.0
        if first is None or first > 5:
            misses.append((question, first, ranked[:5]))
    count = len(corpus["questions"])
    return {"recall@5": hits / count, "mrr": reciprocal / count, "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a corpus file (default: the payments team)")
    parser.add_argument("--memoose-venv", type=Path, help="a venv where memoose 0.6.0 is installed")
    parser.add_argument("--show-misses", action="store_true", help="print each question missed, with the first five")
    args = parser.parse_args()
    args.corpus = args.corpus.resolve()
    corpus = json.loads(args.corpus.read_text())
    print(f"corpus: {len(corpus['entities'])} entities, {len(corpus['facts'])} facts, "
          f"{len(corpus['questions'])} questions ({far_questions(corpus)} far: a word the answering fact lacks)")
    tools = {}
    with tempfile.TemporaryDirectory() as tmp:
        tools["memlens"] = memlens_rankings(corpus, Path(tmp))
    python = memoose_python(args.memoose_venv)
    if python is None:
        print("memoose: not installed (see --memoose-venv); memlens alone")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            tools["memoose 0.6.0"] = memoose_rankings(python, Path(tmp), args.corpus)
    print(f"\n| tool | recall@5 | MRR | recall ms (median) | ms (p95) |\n| --- | --- | --- | --- | --- |")
    results = {}
    for tool, (rankings, timings) in tools.items():
        results[tool] = scores(corpus, rankings)
        ordered = sorted(timings)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(f"| {tool} | {results[tool]['recall@5']:.3f} | {results[tool]['mrr']:.3f} | "
              f"{statistics.median(timings):.2f} | {p95:.2f} |")
    print(f"\ntarget: recall@5 >= {TARGET}, MRR >= {MRR_TARGET} and at least memoose's")
    if args.show_misses:
        for tool, result in results.items():
            for question, rank, first in result["misses"]:
                print(f"{tool} missed {question!r} (rank {rank}): {first}")


if __name__ == "__main__":
    main()
