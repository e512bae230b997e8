"""README.md stays an entry page, and the links of README.md and docs/*.md lead somewhere.

Plain file checks: no Spark session (the fixtures of conftest.py are only built when requested).
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
MAX_README_LINES = 320

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
# [text](target) and ![alt](target), with an optional "title"; text may span lines.
_LINK = re.compile(r"!?\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")


def markdown_files() -> list[Path]:
    return [README] + sorted(DOCS.glob("*.md"))


def prose(text: str) -> str:
    """``text`` with the lines of fenced code blocks blanked (line numbers kept)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            out.append("")
        elif fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: its text lowercased, characters other than letters, digits,
    spaces, hyphens and underscores removed, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML tags
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor the headings of ``path`` get, duplicates suffixed -1, -2, ..."""
    seen: dict[str, int] = {}
    result = set()
    for line in prose(path.read_text(encoding="utf-8")).split("\n"):
        m = _HEADING.match(line)
        if not m:
            continue
        base = anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    return result


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every markdown link and image outside code blocks and code spans."""
    text = prose(path.read_text(encoding="utf-8"))
    text = _CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in _LINK.finditer(text)]


def is_external(target: str) -> bool:
    return re.match(r"^(https?:|mailto:)", target, re.IGNORECASE) is not None


def relative_links(path: Path) -> list[tuple[int, str]]:
    return [(line, t) for line, t in links(path) if t and not is_external(t)]


def test_readme_is_short() -> None:
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_README_LINES, \
        f"README.md has {lines} lines (at most {MAX_README_LINES}): move the details to a page under docs/"


def test_readme_links_every_docs_page() -> None:
    pages = {p.resolve() for p in DOCS.glob("*.md")}
    assert pages, "docs/ holds no .md page"
    linked = {(README.parent / unquote(t.split("#", 1)[0])).resolve()
              for _, t in relative_links(README) if t.split("#", 1)[0]}
    missing = sorted(str(p.relative_to(REPO)) for p in pages - linked)
    assert not missing, f"README.md does not link to {missing}"


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for line, target in relative_links(path):
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"{path.name}:{line}: {target} (no file {dest})")
            continue
        if fragment and dest.suffix == ".md" and unquote(fragment) not in anchors(dest):
            broken.append(f"{path.name}:{line}: {target} (no heading with anchor #{fragment} in {dest.name})")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_anchor_rules() -> None:
    assert anchor("Lifecycle: compaction, retention, garbage collection") == \
        "lifecycle-compaction-retention-garbage-collection"
    assert anchor("5. Read path: straight, columnar, consolidated in parallel, filters inside parts") == \
        "5-read-path-straight-columnar-consolidated-in-parallel-filters-inside-parts"
    assert anchor("Beyond min/max: point lookups, `declared_udfs`") == "beyond-minmax-point-lookups-declared_udfs"
    assert anchor("SQL (and the Thrift server)") == "sql-and-the-thrift-server"
