#!/usr/bin/python3
"""Golden tests for the Datalog dialect, run through the SQL surface users touch.

Usage:
  /usr/bin/python3 run_golden.py --ext build/datalog.so tests/golden/cases [FILE.test ...]
      [--filter TEXT] [-v]

Each *.test file runs in a fresh temporary database with a fresh store table `g`
(`CREATE VIRTUAL TABLE g USING datalog`). Use Debian's /usr/bin/python3: its sqlite3 module
can load extensions.

File format (sqllogictest-like). A file is a sequence of blocks separated by blank lines.
Lines starting with `#` where a block could start (after a blank line or another comment) are
comments. The first line of a block is its header:

  exec                      a Datalog script, run with SELECT datalog_exec(graph, script);
  <script lines>            it must succeed.

  exec error                the script must fail; the error message must contain the
  <script lines>            substring after ---- (error substrings ignore letter case).
  ----
  <expected substring>

  query [ordered]           a (query [...]) run as SELECT edn FROM datalog_q(graph, query,
  <query lines>             args...). Expected rows follow ----, one EDN row per line
  [args: <sql exprs>]       (`[:alice 30]`); none means the query returns no rows. Rows are
  ----                      compared as a multiset, or in order with `ordered`. An optional
  <expected rows>           `args:` line gives the extra datalog_q arguments as SQL
                            expressions, spliced verbatim: `args: 30, '[1 2]', NULL`.

  query error               the query (with optional args: line) must fail; the message
  <query lines>             must contain the substring after ----.
  ----
  <expected substring>

  sql [ordered]             an SQL statement; its rows after ----, one per line, columns
  <sql lines>               joined by `|` (NULL for null, Python's repr for floats, x'hex'
  ----                      for blobs). Multiset comparison unless `ordered`.
  <expected rows>

  sql error                 the SQL statement must fail with a message containing the
  <sql lines>               substring after ----.
  ----
  <expected substring>

  graph NAME                a one-line block: later exec/query blocks use store table NAME,
                            created if new as CREATE VIRTUAL TABLE NAME USING
                            datalog('NAME.graph'): a graph of its own, with its own counters.
                            `graph g` goes back to the default graph.

Every connection also has the SQL functions of register_application_functions (email?,
udf_gt, fails, geomean, udf_sum), for the cases that call SQL functions from Datalog.

Scripts, queries and statements may span several lines but contain no blank line (the blank
line ends the block). Every block is a case; a case passes when its expectation holds.
Output: a line per failing case (and per case with -v), a line per file, then a total line
`N passed, M failed`. The exit status is 1 when any case failed. --filter TEXT runs only the
files whose name contains TEXT; -v prints every case and the text of failing ones.
"""
import argparse
import pathlib
import sqlite3
import sys
import tempfile

SEPARATOR = "----"


class Case:
    def __init__(self, path, line, kind, modifier, body, args, expected, graph):
        self.path = path
        self.line = line          # 1-based line of the header
        self.kind = kind          # exec | query | sql
        self.modifier = modifier  # '' | 'error' | 'ordered'
        self.body = body          # script, query or statement text
        self.args = args          # SQL expressions for datalog_q's extra arguments, or None
        self.expected = expected  # list of expected lines
        self.graph = graph

    def title(self):
        first = self.body.splitlines()[0] if self.body else ""
        if len(first) > 70:
            first = first[:67] + "..."
        header = self.kind + (" " + self.modifier if self.modifier else "")
        return f"{self.path.name}:{self.line}: {header}: {first}"


class FormatError(Exception):
    pass


def parse_file(path):
    """The blocks of a .test file, as Case objects and ('graph', name) directives."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks = []
    current = []
    start = 0
    for number, line in enumerate(lines, 1):
        if line.strip() == "":
            if current:
                blocks.append((start, current))
                current = []
            continue
        if not current:
            if line.lstrip().startswith("#"):
                continue  # a comment between blocks
            start = number
        current.append(line.rstrip("\r"))
    if current:
        blocks.append((start, current))

    items = []
    graph = "g"
    for start, block in blocks:
        words = block[0].split()
        kind = words[0]
        if kind == "graph":
            if len(words) != 2 or len(block) != 1:
                raise FormatError(f"{path}:{start}: expected `graph NAME` on a line of its own")
            graph = words[1]
            items.append(("graph", graph))
            continue
        if kind not in ("exec", "query", "sql"):
            raise FormatError(f"{path}:{start}: unknown block header {block[0]!r}")
        modifier = " ".join(words[1:])
        allowed = {"exec": ("", "error"), "query": ("", "error", "ordered"),
                   "sql": ("", "error", "ordered")}[kind]
        if modifier not in allowed:
            raise FormatError(f"{path}:{start}: unknown modifier {modifier!r} for {kind}")
        rest = block[1:]
        if SEPARATOR in rest:
            cut = rest.index(SEPARATOR)
            body_lines, expected = rest[:cut], rest[cut + 1:]
        else:
            body_lines, expected = rest, None
        args = None
        if kind == "query" and body_lines and body_lines[-1].startswith("args:"):
            args = body_lines[-1][len("args:"):].strip()
            body_lines = body_lines[:-1]
        if not body_lines:
            raise FormatError(f"{path}:{start}: {kind} block without a body")
        if kind == "exec" and modifier == "" and expected is not None:
            raise FormatError(f"{path}:{start}: a plain exec block takes no ----")
        if (kind != "exec" or modifier == "error") and expected is None:
            raise FormatError(f"{path}:{start}: {kind} block needs a ---- line")
        if modifier == "error" and len(expected) != 1:
            raise FormatError(f"{path}:{start}: an error block expects one substring line")
        items.append(Case(path, start, kind, modifier, "\n".join(body_lines), args,
                          expected or [], graph))
    return items


def sql_cell(value):
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return "x'" + value.hex() + "'"
    return str(value)


class GeoMean:
    """A plain aggregate (no window support), as an application would register one."""

    def __init__(self):
        self.product, self.count = 1.0, 0

    def step(self, value):
        if value is not None:
            self.product *= value
            self.count += 1

    def finalize(self):
        return self.product ** (1.0 / self.count) if self.count else None


class IntSum:
    """A window-capable aggregate: integer sum, NULL counted as 0 (Minigraf's udf_sum)."""

    def __init__(self):
        self.total = 0

    def step(self, value):
        self.total += value or 0

    def inverse(self, value):
        self.total -= value or 0

    def value(self):
        return self.total

    def finalize(self):
        return self.total


def failing(value):
    raise ValueError("no good: " + str(value))


def register_application_functions(conn):
    """The SQL functions an application registers; the .test files call them from Datalog
    (LANGUAGE.md §16): email? and udf_gt are predicates, geomean a plain aggregate, udf_sum a
    window-capable aggregate, fails raises."""
    conn.create_function("email?", 1, lambda v: isinstance(v, str) and "@" in v, deterministic=True)
    conn.create_function("udf_gt", 1, lambda v: isinstance(v, int) and v > 500, deterministic=True)
    conn.create_function("fails", 1, failing)
    conn.create_aggregate("geomean", 1, GeoMean)
    conn.create_window_function("udf_sum", 1, IntSum)


def open_database(directory, ext):
    conn = sqlite3.connect(str(directory / "app.db"), isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    conn.enable_load_extension(False)
    register_application_functions(conn)
    return conn


def ensure_graph(conn, name, created):
    """Creates store table name once: g on the default graph file (app.graph), any other name
    on a graph file of its own (NAME.graph), so graphs in one case file stay independent."""
    if name not in created:
        argument = "" if name == "g" else f"('{name}.graph')"
        conn.execute(f"CREATE VIRTUAL TABLE {name} USING datalog{argument}")
        created.add(name)


def run_case(conn, case):
    """None when the case passes, else a description of what went wrong."""
    try:
        if case.kind == "exec":
            conn.execute("SELECT datalog_exec(?, ?)", (case.graph, case.body)).fetchone()
            got = None
        elif case.kind == "query":
            extra = f", {case.args}" if case.args else ""
            sql = f"SELECT edn FROM datalog_q(?, ?{extra})"
            got = [row[0] for row in conn.execute(sql, (case.graph, case.body)).fetchall()]
        else:
            got = ["|".join(sql_cell(v) for v in row) for row in conn.execute(case.body).fetchall()]
    except sqlite3.Error as e:
        message = str(e)
        if case.modifier == "error":
            if case.expected[0].lower() in message.lower():
                return None
            return f"expected an error containing: {case.expected[0]}\n  got error: {message}"
        return f"unexpected error: {message}"
    if case.modifier == "error":
        shown = "" if got is None else "\n  got rows:\n" + ("\n".join("    " + r for r in got)
                                                           if got else "    (none)")
        return f"expected an error containing: {case.expected[0]}\n  but it succeeded{shown}"
    if got is None:
        return None
    expected = [line.strip() for line in case.expected]
    got = [line.strip() for line in got]
    same = got == expected if case.modifier == "ordered" else sorted(got) == sorted(expected)
    if same:
        return None
    return ("expected rows:\n" + "\n".join("    " + r for r in expected) +
            ("\n" if expected else "    (none)\n") +
            "  got rows:\n" + "\n".join("    " + r for r in got) + ("" if got else "    (none)"))


def run_file(path, ext, verbose):
    items = parse_file(path)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        conn = open_database(pathlib.Path(tmp), ext)
        created = set()
        ensure_graph(conn, "g", created)
        for item in items:
            if isinstance(item, tuple):
                ensure_graph(conn, item[1], created)
                continue
            problem = run_case(conn, item)
            if problem is None:
                passed += 1
                if verbose:
                    print(f"ok    {item.title()}")
            else:
                failed += 1
                print(f"FAIL  {item.title()}")
                if verbose:
                    for line in item.body.splitlines():
                        print(f"  | {line}")
                print(f"  {problem}")
        conn.close()
    return passed, failed


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ext", required=True, help="the built extension (datalog.so)")
    parser.add_argument("--filter", default="", help="run only files whose name contains this")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    parser.add_argument("paths", nargs="+", help="case files, or folders of *.test files")
    options = parser.parse_args(argv)

    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        print("this Python's sqlite3 cannot load extensions; use /usr/bin/python3", file=sys.stderr)
        return 2
    files = []
    for p in map(pathlib.Path, options.paths):
        files.extend(sorted(p.glob("*.test")) if p.is_dir() else [p])
    files = [f for f in files if options.filter in f.name]
    if not files:
        print("no case files matched", file=sys.stderr)
        return 2

    total_passed = total_failed = 0
    for path in files:
        try:
            passed, failed = run_file(path, options.ext, options.verbose)
        except FormatError as e:
            print(f"FORMAT ERROR  {e}")
            total_failed += 1
            continue
        total_passed += passed
        total_failed += failed
        print(f"{path.name}: {passed} passed, {failed} failed")
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
