"""Folded stacks ("root;caller;leaf count" per line: the format of Brendan Gregg's
stackcollapse scripts, inferno's collapsers and py-spy's raw output), the one form every
profiler's samples are brought to (profile/profilers.py). Plain functions: parse, merge, the
functions by self time, and the attribution of each sample to a category (profile/rules.toml)."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

RULES = Path(__file__).with_name("rules.toml")
OTHER = "other"


class FoldedError(ValueError):
    pass


def parse(text: str) -> Counter[str]:
    """Stack → samples. A line without a trailing count is an error naming it."""
    stacks: Counter[str] = Counter()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            raise FoldedError(f"line {number} is no folded stack ('frames count'): {line[:120]!r}")
        stacks[stack] += int(count)
    return stacks


def parse_sampled(text: str) -> Counter[str]:
    """py-spy's raw output, whose --nonblocking reads of a running interpreter now and then tear a
    frame's name (seen: a docstring with newlines in place of a function name in asyncua's and
    python-opcua's servers): the lines of such a sample are left out, every well-formed one kept."""
    stacks: Counter[str] = Counter()
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack.strip() and count.isdigit():
            stacks[stack] += int(count)
    return stacks


def render(stacks: Counter[str]) -> str:
    return "".join(f"{stack} {count}\n" for stack, count in sorted(stacks.items()))


def frames(stack: str) -> list[str]:
    return stack.split(";")


@dataclass(frozen=True)
class Function:
    name: str
    samples: int
    share: float  # of all samples


def top(stacks: Counter[str], n: int = 15) -> list[Function]:
    """The `n` functions with the most self time: samples in which they were the leaf."""
    total = sum(stacks.values())
    leaves: Counter[str] = Counter()
    for stack, count in stacks.items():
        leaves[frames(stack)[-1]] += count
    return [Function(name, count, count / total) for name, count in leaves.most_common(n)] if total else []


@dataclass(frozen=True)
class Category:
    name: str
    what: str
    patterns: tuple[re.Pattern, ...]
    fallback: tuple[re.Pattern, ...] = ()


def rules(path: Path = RULES) -> list[Category]:
    found = tomllib.loads(path.read_text())
    return [
        Category(
            c["name"],
            c["what"],
            tuple(re.compile(p) for p in c["patterns"]),
            tuple(re.compile(p) for p in c.get("fallback", ())),
        )
        for c in found["category"]
    ]


def category_of(stack: str, categories: list[Category]) -> str:
    """The category of one sample: the first frame from the leaf that a category's pattern
    matches decides (categories tried in order on each frame); only if none does, the same with
    the fallback patterns; none: OTHER."""
    for patterns_of in (lambda c: c.patterns, lambda c: c.fallback):
        for frame in reversed(frames(stack)):
            for category in categories:
                if any(pattern.search(frame) for pattern in patterns_of(category)):
                    return category.name
    return OTHER


def attribution(stacks: Counter[str], categories: list[Category]) -> dict[str, float]:
    """Each category's share of the samples (OTHER included), in the rules' order."""
    total = sum(stacks.values())
    counts: Counter[str] = Counter()
    for stack, count in stacks.items():
        counts[category_of(stack, categories)] += count
    names = [c.name for c in categories] + [OTHER]
    return {name: counts[name] / total for name in names} if total else {}
