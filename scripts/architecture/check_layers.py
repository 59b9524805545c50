#!/usr/bin/env python3
"""Which way the arrows point (run by scripts/check-architecture; exits 1 on a violation).

  8. `Core/` is the bottom: its files name only types declared in `Core/` (and the libraries'), never a feature's
     or the composition root's (`App/`, which alone knows everyone).
  9. A repository belongs to its feature: outside its folder, only `Assembly/` (which builds it) and other repositories
     (which join its table to read, or share its row decoding) name it; another feature's service asks the owner's
     service. Known reaches are listed in `allowed-reaches` (repository, file, reason), which only shrinks.

Usage: check_layers.py SOURCES_VIEW  (a tree made by source-view, with the list beside this script)
"""
import pathlib
import re
import sys

here = pathlib.Path(__file__).resolve().parent
root = pathlib.Path(sys.argv[1])
problems = []

DECLARATION = re.compile(r'\b(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9]*)')
NAME = re.compile(r'\b([A-Z][A-Za-z0-9]*)\b')
REPOSITORY_FILE = re.compile(r'Repository(\+[A-Za-z]+)?\.swift$')

files = {}
for path in sorted(root.rglob("*.swift")):
    relative = path.relative_to(root)
    if "Migrations" in relative.parts:
        continue
    # Comments and string literals name things without depending on them.
    lines = ["" if line.lstrip().startswith("//") else re.sub(r'"[^"]*"', '""', line) for line in path.read_text().splitlines()]
    files[relative] = lines

folders = {}  # type name → the top folders declaring it
for path, lines in files.items():
    for line in lines:
        for name in DECLARATION.findall(line):
            folders.setdefault(name, set()).add(path.parts[0])

for path, lines in files.items():
    if path.parts[0] != "Core":
        continue
    for number, line in enumerate(lines, 1):
        for name in NAME.findall(line):
            if name in folders and "Core" not in folders[name]:
                problems.append(f"{path}:{number}: Core/ names `{name}` from {', '.join(sorted(folders[name]))}/ (Core holds ids and values only)")

allowed = set()
for number, line in enumerate((here / "allowed-reaches").read_text().splitlines(), 1):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    parts = line.split(None, 2)
    if len(parts) < 3:
        problems.append(f"allowed-reaches:{number}: every entry says why: {line}")
        continue
    allowed.add((parts[0], parts[1]))

repositories = {name: owner for name, owner in folders.items() if name.endswith("Repository") and len(owner) == 1}
used = set()
for path, lines in files.items():
    if path.parts[0] in ("App", "Assembly") or REPOSITORY_FILE.search(path.name):
        continue
    for number, line in enumerate(lines, 1):
        for name in set(NAME.findall(line)):
            owner = repositories.get(name)
            if owner is None or owner == {path.parts[0]}:
                continue
            if (name, str(path)) in allowed:
                used.add((name, str(path)))
                continue
            problems.append(f"{path}:{number}: names `{name}`, {next(iter(owner))}/'s repository (ask its service)")
for name, path in sorted(allowed - used):
    problems.append(f"allowed-reaches: {path} no longer names `{name}`: remove its entry")

for problem in problems:
    print("architecture: " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
