#!/usr/bin/env python3
"""Check every link between the project's Markdown files: the file it names exists, and
so does the anchor after '#' (a heading's GitHub slug, or an explicit <a id="..."> /
<a name="...">).

Checked: the Markdown files of the repository root (README.md, CHANGELOG.md, ...),
docs/ (recursively), benchmarks/, examples/, packaging/, python/ and test/ where they
exist. Links are [text](target) and [text]: target reference definitions; targets with a
scheme (http:, https:, mailto:) are not fetched (CI has no network to rely on), and links
inside fenced code blocks or inline code are not links. A link to a directory must name
an existing directory; a link to a non-Markdown file must name an existing file (its
anchor, if any, is not checked).

Usage:
  scripts/check-doc-links.py [--root DIR] [-v]

Exit status: 0 when every link resolves, 1 otherwise (each broken link printed as
FILE:LINE: target: why), 2 on bad usage. CTest runs it as the test docs.links
(examples/CMakeLists.txt).
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from pathlib import Path

SCANNED_DIRS = ["docs", "benchmarks", "examples", "packaging", "python", "test", "support", "scripts"]
SKIPPED_PARTS = {"build", ".git", ".cccl", "node_modules", "_deps"}

INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:[^>]*\s)?(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, markup and punctuation dropped,
    spaces to hyphens (letters, digits, '-' and '_' kept, Unicode letters too)."""
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = text.replace("`", "")
    text = text.strip().lower()
    out = []
    for ch in text:
        if ch in " ":
            out.append("-")
        elif ch in "-_":
            out.append(ch)
        elif ch.isalnum() or unicodedata.category(ch).startswith(("L", "N", "M")):
            out.append(ch)
    return "".join(out)


def lines_outside_code(path: Path):
    """(line number, line, line with inline code blanked) of every line outside fenced
    code blocks."""
    in_fence = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if fence:
            if in_fence is None:
                in_fence = fence.group(1)
            elif fence.group(1) == in_fence:
                in_fence = None
            continue
        if in_fence is None:
            yield number, line, INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


_anchor_cache: dict[Path, set[str]] = {}


def anchors_of(path: Path) -> set[str]:
    if path in _anchor_cache:
        return _anchor_cache[path]
    anchors: set[str] = set()
    counts: dict[str, int] = {}
    for _, line, _ in lines_outside_code(path):
        for match in EXPLICIT_ANCHOR.finditer(line):
            anchors.add(match.group(1))
        heading = HEADING.match(line)
        if heading:
            slug = github_slug(heading.group(2))
            n = counts.get(slug, 0)
            anchors.add(slug if n == 0 else f"{slug}-{n}")  # GitHub numbers repeated headings
            counts[slug] = n + 1
    _anchor_cache[path] = anchors
    return anchors


def markdown_files(root: Path) -> list[Path]:
    files = sorted(p for p in root.glob("*.md"))
    for d in SCANNED_DIRS:
        base = root / d
        if base.is_dir():
            files += sorted(p for p in base.rglob("*.md") if not SKIPPED_PARTS & set(p.relative_to(root).parts))
    return files


def check_file(path: Path, root: Path, verbose: bool) -> list[str]:
    problems = []
    for number, _, line in lines_outside_code(path):
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        ref = REFERENCE_DEF.match(line)
        if ref:
            targets.append(ref.group(1))
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # http:, https:, mailto: ...
            file_part, _, anchor = target.partition("#")
            where = f"{path.relative_to(root)}:{number}: {target}"
            dest = path if not file_part else (path.parent / file_part).resolve()
            if file_part and not dest.exists():
                problems.append(f"{where}: no such file or directory")
                continue
            if anchor and dest.is_file() and dest.suffix.lower() == ".md":
                if anchor not in anchors_of(dest):
                    problems.append(f"{where}: no anchor '#{anchor}' in {dest.relative_to(root)}")
                    continue
            if verbose:
                print(f"ok {where}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("-v", action="store_true", dest="verbose")
    args = parser.parse_args()
    root = args.root.resolve()
    if not (root / "README.md").is_file():
        print(f"check-doc-links: {root} has no README.md (use --root)", file=sys.stderr)
        return 2
    problems = []
    files = markdown_files(root)
    for f in files:
        problems += check_file(f, root, args.verbose)
    for p in problems:
        print(p)
    print(f"check-doc-links: {len(files)} files, {len(problems)} broken link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
