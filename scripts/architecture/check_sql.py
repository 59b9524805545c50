#!/usr/bin/env python3
"""Where SQL may live, and who may write each table (run by scripts/check-architecture; exits 1 on a violation).

Each file is read as Swift (`swift_source`): comments dropped, string literals apart from the code, so SQL spread
over lines, written in any case of receiver, or reached through another object is seen.

  6. SQL and the database engine only in repositories (`*Repository.swift`, `*Repository+*.swift`), `Database/` and
     `App/` and `Assembly/` (where features are built); the files that still hold them elsewhere are listed in `allowed-sql`, each with its reason. The list
     only shrinks: a listed file that no longer needs its entry is an error too.
  7. A table is written (INSERT, UPDATE, DELETE, UPSERT) only by its owner in `table-owners`; other repositories
     join it to read. Known exceptions are listed in `allowed-writes` (table, file, reason), which only shrinks.

Usage: check_sql.py SOURCES_VIEW  (a tree made by source-view, with the lists beside this script)
"""
import pathlib
import re
import sys

import swift_source

here = pathlib.Path(__file__).resolve().parent
root = pathlib.Path(sys.argv[1])
problems = []

# Read from the code (comments dropped, literals apart), whatever the receiver is named (`db`, `conn`, a parameter
# of a unit of work): a statement, a query builder's call, the engine's type, the engine reached through another
# object (`rows.database.read`).
SQL = re.compile(
    r'\.raw\s*\(|\.(?:select|insert\s*\(\s*into:|update|delete\s*\(\s*from:)\s*\(?\s*"@L\d+"|\.select\(\)'
    r'|\bSQLQueryString\b|\.database\s*\.\s*(?:sql|read|transaction|withConnection)\b')
ENGINE = re.compile(r'\bany DatabaseEngine\b|:\s*DatabaseEngine\b')
# A write in a literal's text, over as many lines as it takes: INSERT (OR REPLACE, OR IGNORE…) INTO, REPLACE INTO,
# UPDATE, DELETE FROM.
WRITE_TEXT = re.compile(r'\b(?:INSERT(?:\s+OR\s+[A-Z]+)?\s+INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)\b', re.S)
# A builder's write in the code: `x.update("users")`, `x.insert(into: "users")`, `x.delete(from: "users")`.
WRITE_CALL = re.compile(r'\.(?:update|insert\s*\(\s*into:|delete\s*\(\s*from:)\s*\(?\s*"@L(\d+)"')
REPOSITORY = re.compile(r'Repository(\+[A-Za-z]+)?\.swift$')


def entries(name, fields, reason=True):
    """The list's lines: `fields` words, then (when `reason`) why, which is required."""
    rows = []
    for number, line in enumerate((here / name).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, fields)
        if len(parts) < fields or (reason and len(parts) == fields):
            problems.append(f"{name}:{number}: every entry says why: {line}")
            continue
        rows.append(tuple(parts[:fields]))
    return rows


def free(path):
    """Files where SQL and the engine belong."""
    return bool(REPOSITORY.search(path.name)) or path.parts[0] in ("Database", "App", "Assembly")


files = {}
for path in sorted(root.rglob("*.swift")):
    relative = path.relative_to(root)
    if relative.parts[0] == "Database" and len(relative.parts) > 1 and relative.parts[1] == "Migrations":
        continue
    files[relative] = swift_source.read(path.read_text())

allowed_sql = {pathlib.PurePath(path) for (path,) in entries("allowed-sql", 1)}
for path, source in files.items():
    holds = [n for n, line in enumerate(source.code, 1) if SQL.search(line) or ENGINE.search(line)]
    if free(path):
        continue
    if holds and path not in allowed_sql:
        problems.append(f"{path}:{holds[0]}: SQL or the database engine outside a repository (give it to the feature's repository)")
    if not holds and path in allowed_sql:
        problems.append(f"allowed-sql: {path} no longer holds SQL or the engine: remove its entry")
for path in allowed_sql:
    if path not in files:
        problems.append(f"allowed-sql: {path} does not exist: remove its entry")

owners = dict(entries("table-owners", 2, reason=False))
migrations = "\n".join(p.read_text() for p in sorted((root / "Database" / "Migrations").glob("*.swift")))
# Every table the migrations make, but the migrations' own and those renamed into another name.
tables = set(re.findall(r'CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)', migrations)) - {"schema_migrations"}
tables -= set(re.findall(r'ALTER TABLE ([a-z_]+) RENAME TO', migrations))
for table in sorted(tables - owners.keys()):
    problems.append(f"table-owners: the table `{table}` has no owner")
allowed_writes = set(entries("allowed-writes", 2))
used_writes = set()
def writes(source):
    """(line, table) for each write the file makes, in a literal's text or by a builder's call."""
    for literal in source.literals:
        for match in WRITE_TEXT.finditer(literal.text):
            yield literal.line + literal.text.count("\n", 0, match.start()), match.group(1)
    for number, line in enumerate(source.code, 1):
        for match in WRITE_CALL.finditer(line):
            yield number, source.literals[int(match.group(1))].text


for path, source in files.items():
    for number, table in writes(source):
        if table not in owners:
            continue  # a word of a sentence (`UPDATE` in a message), not a table
        owner = owners[table]
        if str(path.with_suffix("")).split("+")[0] == owner:
            continue
        if (table, str(path)) in allowed_writes:
            used_writes.add((table, str(path)))
            continue
        problems.append(f"{path}:{number}: writes `{table}`, which {owner} owns (ask its service)")
for table, path in sorted(allowed_writes - used_writes):
    problems.append(f"allowed-writes: {path} no longer writes `{table}`: remove its entry")

for problem in problems:
    print("architecture: " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
