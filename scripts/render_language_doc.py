#!/usr/bin/python3
"""Renders docs/LANGUAGE.md from docs/LANGUAGE.md.in, running every example against the built
extension, so the reference shows what the extension prints, never what someone expected.

  scripts/render_language_doc.py [--ext build/datalog.so]           rewrite docs/LANGUAGE.md
  scripts/render_language_doc.py [--ext build/datalog.so] --check   fail (with a diff) if it is stale

Markers (an HTML comment on the line before a fenced block of the template):
  <!--setup-->  a ```sql block: the sample graph, run in the sqlite3 shell on a new database.
  <!--sql-->    a ```sql block: run in the sqlite3 shell (-cmd '.load ./build/datalog') on a new
                database made by the setup; its output (stdout and stderr, in order) follows it.
  <!--dl-->     a ```clojure block: a Datalog script, run as SELECT datalog_exec('g', script) on a
                new database made by the setup; the returned text (or the error) follows it.
  <!--dl t-->   the same on an empty store table t (datalog('t.graph')) of that database.
"""
import argparse
import difflib
import os
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "docs" / "LANGUAGE.md.in"
OUTPUT = REPO / "docs" / "LANGUAGE.md"


class Runner:
    """Runs each example in a folder of its own, where ./build/datalog is the extension."""

    def __init__(self, ext, work):
        self.ext_dir = pathlib.Path(ext).resolve().parent
        self.work = pathlib.Path(work)
        self.count = 0
        self.setup_sql = ""

    def new_dir(self):
        self.count += 1
        d = self.work / f"{self.count:03d}"
        d.mkdir()
        (d / "build").symlink_to(self.ext_dir)
        return d

    def shell(self, d, sql, load=True):
        args = ["stdbuf", "-o0", "sqlite3"] + (["-cmd", ".load ./build/datalog"] if load else [])
        out = subprocess.run(args + ["app.db"], input=sql, cwd=d, text=True, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=120)
        return out.stdout

    def prepared(self):
        d = self.new_dir()
        self.shell(d, self.setup_sql, load=False)
        return d

    def setup(self, sql):
        self.setup_sql = sql + "\n"
        return self.shell(self.new_dir(), self.setup_sql, load=False)

    def sql(self, sql):
        return self.shell(self.prepared(), sql + "\n")

    def datalog(self, script, graph):
        d = self.prepared()
        before = os.getcwd()
        conn = sqlite3.connect(str(d / "app.db"))
        conn.enable_load_extension(True)
        os.chdir(d)  # relative graph paths, as in the shell examples
        try:
            conn.load_extension("./build/datalog")
            if graph != "g":
                conn.execute(f"CREATE VIRTUAL TABLE {graph} USING datalog('{graph}.graph')")
            try:
                return conn.execute("SELECT datalog_exec(?, ?)", (graph, script)).fetchone()[0]
            except sqlite3.Error as e:
                return str(e)
        finally:
            os.chdir(before)
            conn.close()


def render(runner, template):
    lines = template.split("\n")
    out = []
    i = 0
    while i < len(lines):
        marker = re.match(r"^<!--(setup|sql|dl)(?: (\w+))?-->$", lines[i])
        if not marker:
            out.append(lines[i])
            i += 1
            continue
        kind, graph = marker.group(1), marker.group(2) or "g"
        start = i + 1
        end = start + 1
        while not lines[end].startswith("```"):
            end += 1
        body = "\n".join(lines[start + 1:end])
        out.extend(lines[start:end + 1])
        i = end + 1
        if kind == "setup":
            result = runner.setup(body)
        elif kind == "sql":
            result = runner.sql(body)
        else:
            result = runner.datalog(body, graph)
        result = result.rstrip("\n")
        out.extend(["```text", result, "```"] if result else ["*(no output)*"])
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ext", default=str(REPO / "build" / "datalog.so"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        runner = Runner(args.ext, work)
        text = render(runner, TEMPLATE.read_text())
    if args.check:
        current = OUTPUT.read_text()
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       "docs/LANGUAGE.md", "rendered now"))
            print("docs/LANGUAGE.md is stale: run scripts/render_language_doc.py", file=sys.stderr)
            return 1
        print(f"docs/LANGUAGE.md: {runner.count - 1} examples print what it shows")
        return 0
    OUTPUT.write_text(text)
    print(f"wrote docs/LANGUAGE.md ({runner.count - 1} examples)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
