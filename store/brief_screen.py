"""What is never put in a brief: text that reads as instructions to the agent, or looks like a secret.

A brief goes into an agent's context at the start of every session, so a fact that carries orders
("ignore the previous instructions and ...") would be obeyed as if the user had said it, and a fact
that carries a key would leak it into every transcript. Such facts stay in the memory (and in its
reports, marked "withheld from briefs" with the reason); they are only kept out of briefs.

The secret patterns follow the plugins of Yelp's detect-secrets (AWS, GitHub, Slack, Stripe,
private keys, credentials in URLs, keyword assignments), written here because the library itself
costs 0.24 s to import (a session-start hook has 0.15 s in all), scans 1.2 ms a line, and its
entropy plugins flag ordinary prose. False positives are cheap (a fact is left out of a brief,
nothing more); a missed secret is not, so the patterns lean to withholding.
"""
from __future__ import annotations

import re

# (what, anchors, pattern): the first pattern that matches names why a text is withheld; no reason
# quotes the text. Every match of a pattern holds one of its anchors (case-folded), which a text
# must hold for the pattern to be tried at all (see _ANCHORS).
_SECRETS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("a private key", ("private key",), r"-----BEGIN[A-Z ]{0,20} PRIVATE KEY"),
    ("an AWS access key", ("akia", "asia", "abia", "acca"), r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("a GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     r"\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
    ("a GitLab token", ("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("a Slack token", ("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("a Stripe key", ("k_live_", "k_test_"), r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("an API key", ("sk-",), r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
    ("a Google API key", ("aiza",), r"\bAIza[0-9A-Za-z_-]{35}"),
    ("an npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("a JSON web token", ("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("credentials in a URL", ("://",), r"\b[a-z][a-z0-9+.-]{1,20}://[^/\s:@]{1,100}:[^/\s@]{1,100}@"),
    # A keyword (alone or in a name: TWILIO_AUTH_TOKEN), then `=`, `:` or "is", then a value that is
    # one word holding a digit or a symbol ("password is hunter2!"; not "the secret is stored in Vault").
    ("a password, token or key", ("passw", "pwd", "passphrase", "secret", "token", "key", "credential"),
     r"(?i)(?<![^\W_])(?:password|passwd|pwd|passphrase|secret|token|api[_ -]?key|access[_ -]?key|private[_ -]?key"
     r"|client[_ -]?secret|auth[_ -]?token|credentials?)[a-z0-9_-]{0,20}"
     r"\s*(?:[:=]|\bis\b)\s*['\"]?(?=[^\s'\"]*[\d!#$%&*+/=?@^~])[^\s'\",;]{6,}"),
)

# Text addressed to whoever reads it, telling them what to do: what prompt injection looks like.
# Matched without regard to case.
_INSTRUCTIONS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("tells the reader to set instructions aside", ("ignore", "disregard", "forget", "override", "bypass"),
     r"\b(?:ignore|disregard|forget|override|bypass)\b[\w\s,']{0,40}?\b(?:instructions?|rules|prompts?|guidelines"
     r"|directions|directives|guardrails|safety)\b"),
    ("speaks of the agent's prompt or role", ("prompt", "message", "instruction", "from now on", "as a", "you are"),
     r"\b(?:system|developer|hidden) (?:prompt|message|instructions?)\b|\bnew instructions?\b|\bfrom now on\b"
     r"|\bas an? (?:ai|language model|llm|assistant)\b|\byou are (?:now )?(?:an?|the|in|my) \w"),
    ("addresses the reader with orders", ("you ", "note", "message", "reminder"),
     r"\byou (?:must|should|shall|will|need to|have to|are required to|are to|may not|can't|cannot)\b"
     r"|\b(?:note|message|reminder) (?:to|for) (?:the |any )?(?:ai|agent|assistant|model|llm|claude|codex|gemini)\b"),
    ("tells the reader to hide something from the user", ("do not", "don't", "never"),
     r"\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show|let)\b[\w\s]{0,30}\b(?:user|human|anyone)\b"),
    ("tells the reader to run a command", ("run", "exec", "eval", "paste", "type", "curl", "wget"),
     r"\b(?:run|execute|exec|eval|paste|type)\b\W{0,3}(?:rm|curl|wget|sudo|bash|sh|powershell|iex|chmod|nc)\b"
     r"|\b(?:curl|wget)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b"),
    ("reads as an order", ("always", "never", "do not", "don't", "make sure", "be sure", "remember to", "please",
                           "important:", "attention:", "warning to"),
     r"(?:^|[.!?]\s+|\n\s*)(?:always|never|do not|don't|make sure|be sure to|remember to|please|important:|"
     r"attention:|warning to)\b"),
    ("holds markup addressed to a model", ("<",), r"<\s*/?\s*(?:system|instructions?|assistant|im_start|im_end)\s*>"),
)

_PATTERNS = (tuple((f"looks like a secret ({what})", anchors, re.compile(pattern))
                   for what, anchors, pattern in _SECRETS)
             + tuple((f"reads as instructions to the agent ({what})", anchors, re.compile(pattern, re.IGNORECASE))
                     for what, anchors, pattern in _INSTRUCTIONS))


def _trie(words: list[str]) -> str:
    """A regular expression matching any of `words`, as a trie: one branch a character, not one a word."""
    tree: dict = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    def expression(node: dict) -> str:
        branches = [re.escape(char) + expression(rest) for char, rest in sorted(node.items()) if char]
        if not branches:
            return ""
        joined = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{joined})?" if "" in node else joined
    return expression(tree)


# Whether a case-folded text holds any anchor: what most texts (which hold none) cost. As a trie,
# 1.6 us a fact at 10,000 entities, against 30 us for trying every pattern and 3.6 us for the
# anchors as one alternation. A text that holds one tries only the patterns of the anchors it holds.
_ALL_ANCHORS = sorted({anchor for _, anchors, _ in _PATTERNS for anchor in anchors})
_ANCHORS = re.compile(_trie(_ALL_ANCHORS))
_TRIED_FOR = {anchor: [place for place, (_, anchors, _) in enumerate(_PATTERNS) if anchor in anchors]
              for anchor in _ALL_ANCHORS}


def withheld_reason(text: str | None) -> str | None:
    """Why `text` may not go into a brief, or None."""
    if not text:
        return None
    folded = text.casefold()
    if not _ANCHORS.search(folded):
        return None
    tried = sorted({place for anchor in _ALL_ANCHORS if anchor in folded for place in _TRIED_FOR[anchor]})
    return next((_PATTERNS[place][0] for place in tried if _PATTERNS[place][2].search(text)), None)


class Screen:
    """Screens facts, each name and relation once however many facts say it."""

    def __init__(self) -> None:
        self._seen: dict[str, str | None] = {}

    def text(self, text: str | None) -> str | None:
        if not text:
            return None
        if text not in self._seen:
            self._seen[text] = withheld_reason(text)
        return self._seen[text]

    def fact(self, subject: str | None, relation: str | None, object_: str | None, description: str | None) -> str | None:
        """Why a fact (by its names, relation and description) may not go into a brief, or None."""
        return (self.text(subject) or self.text(relation) or self.text(object_)
                or (withheld_reason(description) if description else None))


def withheld_facts(facts: list[dict], names: dict[str, str]) -> dict[str, str]:
    """{fact id: why it is withheld from briefs} for the snapshot's facts that have their text
    (`names`: entity names by id). Each entity's name and each relation is screened once, so a fact
    costs three lookups and the screen of its description: 0.5 s at 100,000 entities and 300,000
    facts, against 1.3 s screening a fact's names through `Screen`."""
    by_entity = {entity_id: reason for entity_id, name in names.items() if (reason := withheld_reason(name))}
    by_relation: dict[str, str | None] = {}
    withheld = {}
    for fact in facts:
        relation = fact["relation"]
        if relation is None:   # forgotten: nothing left to tell
            continue
        if relation not in by_relation:
            by_relation[relation] = withheld_reason(relation)
        reason = (by_entity.get(fact["subject"]) or by_relation[relation] or by_entity.get(fact["object"])
                  or withheld_reason(fact["description"]))
        if reason is not None:
            withheld[fact["id"]] = reason
    return withheld
