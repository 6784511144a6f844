#!/usr/bin/env python3
"""Check that the code quoted in docs/ is the code that is compiled.

Every fenced C++ block (```cpp, ```c++, ```cuda) in a Markdown file under docs/ must carry,
on the last non-blank line above its opening fence, one of two markers:

  <!-- example: FILE NAME -->   the block is the region of examples/FILE between the
                                lines `// example-begin NAME` and `// example-end NAME`
                                (marker lines of nested regions left out);
  <!-- synopsis: PATH [N] -->   the block is the first (the N-th) `/// @code ... /// @endcode` block
                                of the header PATH (relative to the repository root),
                                without its `///` prefixes.

Both sides are compared after removing their common indentation, trailing blanks and
leading and trailing blank lines. A mismatch prints a diff. Other blocks (```sh,
```cmake, ```text, ...) are not checked. Files listed in UNCHECKED_FILES may hold
unmarked C++ blocks (their marked blocks are still checked).

Usage:
  scripts/check-doc-snippets.py [--root DIR] [--fix] [--list] [-v]

  --root DIR  the repository root (default: the parent of this script's directory)
  --fix       rewrite mismatched blocks in docs/ from their sources instead of failing
  --list      print every example region (FILE NAME) and exit
  -v          name every block checked

Exit status: 0 when every block matches (or was fixed), 1 otherwise, 2 on bad usage.
CTest runs it as the test docs.snippets (examples/CMakeLists.txt).
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

CODE_LANGUAGES = {"cpp", "c++", "cxx", "cuda", "cu"}
EXAMPLE_SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h"}

# Written before the examples existed; their C++ blocks are not quotes yet.
UNCHECKED_FILES = {"docs/getting-started.md"}

BEGIN_RE = re.compile(r"^\s*//\s*example-begin\s+(\S+)\s*$")
END_RE = re.compile(r"^\s*//\s*example-end\s+(\S+)\s*$")
FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
EXAMPLE_MARK_RE = re.compile(r"^\s*<!--\s*example:\s*(\S+)\s+(\S+)\s*-->\s*$")
SYNOPSIS_MARK_RE = re.compile(r"^\s*<!--\s*synopsis:\s*(\S+)(?:\s+(\d+))?\s*-->\s*$")
ANY_MARK_RE = re.compile(r"^\s*<!--\s*(example|synopsis)\s*:")


class SourceError(Exception):
    pass


def normalise(lines: list[str]) -> list[str]:
    """Trailing blanks off, leading/trailing blank lines off, common indentation off."""
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line]
    cut = min(indents) if indents else 0
    return [line[cut:] if line else line for line in lines]


def read_example_regions(path: Path, shown: str) -> dict[str, list[str]]:
    """NAME -> lines of every `// example-begin NAME` ... `// example-end NAME` region."""
    regions: dict[str, list[str]] = {}
    open_regions: list[tuple[str, int]] = []  # (name, line number), innermost last
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        begin, end = BEGIN_RE.match(line), END_RE.match(line)
        if begin:
            name = begin.group(1)
            if name in regions or any(name == n for n, _ in open_regions):
                raise SourceError(f"{shown}:{number}: example region '{name}' begins a second time")
            open_regions.append((name, number))
            regions[name] = []
        elif end:
            name = end.group(1)
            if not open_regions:
                raise SourceError(f"{shown}:{number}: 'example-end {name}' without a matching begin")
            if open_regions[-1][0] != name:
                raise SourceError(
                    f"{shown}:{number}: 'example-end {name}' closes '{open_regions[-1][0]}' "
                    f"(begun on line {open_regions[-1][1]})")
            open_regions.pop()
        else:
            for name, _ in open_regions:
                regions[name].append(line)
    if open_regions:
        name, number = open_regions[-1]
        raise SourceError(f"{shown}:{number}: example region '{name}' is never closed")
    return regions


def read_header_synopsis(path: Path, shown: str, number: int = 1) -> list[str]:
    """The number-th (1-based) `/// @code` ... `/// @endcode` block of a header, without `///`."""
    block: list[str] | None = None
    seen = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if block is None:
            if stripped == "/// @code":
                block = []
        elif stripped == "/// @endcode":
            seen += 1
            if seen == number:
                return block
            block = None
        elif stripped.startswith("///"):
            text = stripped[3:]
            block.append(text[1:] if text.startswith(" ") else text)
        else:
            raise SourceError(f"{shown}: the @code block is interrupted by a line that is not a /// comment")
    raise SourceError(f"{shown}: no '/// @code' ... '/// @endcode' block")


@dataclass
class Block:
    doc: Path
    fence_line: int  # 1-based line number of the opening fence
    first: int  # 0-based index of the first content line
    last: int  # 0-based index one past the last content line
    indent: str  # the fence's indentation, given back to fixed lines
    language: str
    marker: str | None  # the marker line, if any
    marker_line: int  # 1-based


def find_blocks(doc: Path, lines: list[str]) -> tuple[list[Block], list[str]]:
    blocks: list[Block] = []
    errors: list[str] = []
    i = 0
    while i < len(lines):
        fence = FENCE_RE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, ticks, language = fence.group(1), fence.group(2), fence.group(3).lower()
        j = i + 1
        close = re.compile(r"^\s*" + re.escape(ticks[0]) + "{" + str(len(ticks)) + r",}\s*$")
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        if j == len(lines):
            errors.append(f"{doc}:{i + 1}: code block never closed")
            break
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = lines[k] if k >= 0 and ANY_MARK_RE.match(lines[k]) else None
        blocks.append(Block(doc, i + 1, i + 1, j, indent, language, marker, k + 1))
        i = j + 1
    # Markers that are not directly above a code block are mistakes too.
    used = {b.marker_line for b in blocks if b.marker}
    for number, line in enumerate(lines, start=1):
        if ANY_MARK_RE.match(line) and number not in used:
            errors.append(f"{doc}:{number}: marker is not directly above a code block: {line.strip()}")
    return blocks, errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--fix", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    root = args.root.resolve()
    docs_dir, examples_dir = root / "docs", root / "examples"
    if not docs_dir.is_dir() or not examples_dir.is_dir():
        print(f"error: {root} has no docs/ or no examples/ directory", file=sys.stderr)
        return 2

    errors: list[str] = []
    regions: dict[str, dict[str, list[str]]] = {}
    broken: set[str] = set()  # examples whose markers are wrong (reported once)
    for path in sorted(examples_dir.iterdir()):
        if path.suffix in EXAMPLE_SUFFIXES:
            try:
                regions[path.name] = read_example_regions(path, f"examples/{path.name}")
            except SourceError as e:
                errors.append(str(e))
                broken.add(path.name)

    if args.list:
        for file, names in regions.items():
            for name in names:
                print(f"{file} {name}")
        return 0 if not errors else 1

    checked = fixed = 0
    docs = sorted(docs_dir.rglob("*.md"))
    for doc in docs:
        relative = doc.relative_to(root).as_posix()
        lines = doc.read_text(encoding="utf-8").splitlines()
        blocks, block_errors = find_blocks(doc.relative_to(root), lines)
        errors.extend(block_errors)
        replacements: list[tuple[Block, list[str]]] = []
        for block in blocks:
            where = f"{relative}:{block.fence_line}"
            if block.marker is None:
                if block.language in CODE_LANGUAGES and relative not in UNCHECKED_FILES:
                    errors.append(f"{where}: C++ block without a marker: quote it from examples/ "
                                  "(<!-- example: FILE NAME -->) or from a header (<!-- synopsis: PATH -->)")
                continue
            example = EXAMPLE_MARK_RE.match(block.marker)
            synopsis = SYNOPSIS_MARK_RE.match(block.marker)
            try:
                if example:
                    file, name = example.group(1), example.group(2)
                    if file in broken:
                        continue  # its error is reported above
                    if file not in regions:
                        raise SourceError(f"{where}: no examples/{file}")
                    if name not in regions[file]:
                        raise SourceError(f"{where}: examples/{file} has no region '{name}' "
                                          f"(it has: {', '.join(regions[file]) or 'none'})")
                    source, source_name = regions[file][name], f"examples/{file} [{name}]"
                elif synopsis:
                    header = root / synopsis.group(1)
                    if not header.is_file():
                        raise SourceError(f"{where}: no {synopsis.group(1)}")
                    number = int(synopsis.group(2) or 1)
                    source = read_header_synopsis(header, synopsis.group(1), number)
                    source_name = f"{synopsis.group(1)} @code" + (f" #{number}" if number > 1 else "")
                else:
                    raise SourceError(f"{where}: malformed marker: {block.marker.strip()}")
            except SourceError as e:
                errors.append(str(e))
                continue

            checked += 1
            expected = normalise([line for line in source if not BEGIN_RE.match(line) and not END_RE.match(line)])
            actual = normalise(lines[block.first:block.last])
            if expected == actual:
                if args.verbose:
                    print(f"ok   {where} = {source_name}")
                continue
            if args.fix:
                replacements.append((block, expected))
                print(f"fix  {where} from {source_name}")
                continue
            diff = difflib.unified_diff(actual, expected, fromfile=f"{where} (docs)", tofile=source_name,
                                        lineterm="")
            errors.append(f"{where}: differs from {source_name}:\n" + "\n".join(diff))

        if replacements:
            for block, expected in reversed(replacements):
                lines[block.first:block.last] = [block.indent + line if line else line for line in expected]
                fixed += 1
            doc.write_text("\n".join(lines) + "\n", encoding="utf-8")

    for error in errors:
        print(f"error: {error}")
    summary = f"{checked} quoted block(s) in {len(docs)} Markdown file(s) under docs/"
    if errors:
        print(f"FAILED: {len(errors)} problem(s); {summary}")
        return 1
    if fixed:
        print(f"OK: {summary}; {fixed} rewritten from their sources")
    else:
        print(f"OK: {summary} match their sources")
    return 0


if __name__ == "__main__":
    sys.exit(main())
