"""A query's memory budget (issue 20, item 2): a query that would hold more than its budget ends
with a clear error instead of exhausting the machine, and the process stays healthy.

Each case runs in a child process, which reports the error and its peak resident memory."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import EXT

STRING_DOUBLING = "(query [:find ?s40 :where [?e :n ?s0] " + " ".join(
    f"[(str ?s{i} ?s{i}) ?s{i + 1}]" for i in range(40)) + "])"
CROSS_PRODUCT = "(query [:find ?a ?b ?c ?d :where [?a :n _] [?b :n _] [?c :n _] [?d :n _]])"


def run_child(tmp_path, setup, query):
    script = textwrap.dedent(f"""
        import json, sqlite3
        conn = sqlite3.connect({str(tmp_path / 'app.db')!r}, isolation_level=None)
        conn.enable_load_extension(True)
        conn.load_extension({EXT!r})
        for sql in {setup!r}:
            conn.execute(sql)
        conn.execute("SELECT datalog_exec('g', ?)",
                     ("(transact [" + " ".join(f'[{{i}} :n "v{{i}}"]' for i in range(1, 301)) + "])",))
        try:
            conn.execute("SELECT * FROM datalog_q('g', ?)", ({query!r},)).fetchall()
            error = None
        except sqlite3.Error as e:
            error = [e.sqlite_errorname, str(e)]
        healthy = conn.execute("SELECT count(*) FROM g").fetchone()[0]
        # VmHWM: this process's peak resident memory (ru_maxrss would include the parent's,
        # inherited across fork and exec).
        hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
        peak_mb = int(hwm.split()[1]) // 1024
        print(json.dumps({{"error": error, "healthy": healthy, "peak_mb": peak_mb}}))
    """)
    env = dict(os.environ)
    if "asan" in env.get("LD_PRELOAD", ""):
        # AddressSanitizer keeps freed memory in quarantine (256 MB by default): not the query's.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("query", [STRING_DOUBLING, CROSS_PRODUCT], ids=["string doubling", "cross product"])
@pytest.mark.parametrize("how", ["datalog_limit", "table argument", "hard heap limit"])
def test_a_query_past_its_memory_budget_fails_and_the_process_stays_healthy(tmp_path, query, how):
    setup = {
        "datalog_limit": ["CREATE VIRTUAL TABLE g USING datalog", "SELECT datalog_limit('max_memory_mb', 256)"],
        "table argument": ["CREATE VIRTUAL TABLE g USING datalog(max_memory_mb=256)"],
        "hard heap limit": ["CREATE VIRTUAL TABLE g USING datalog", "PRAGMA hard_heap_limit=268435456"],
    }[how]
    result = run_child(tmp_path, setup, query)
    assert result["error"] is not None, result
    name, message = result["error"]
    assert name == "SQLITE_ERROR", result
    assert message.startswith("datalog: Query memory limit (256 MiB) exceeded: the query needed "), message
    assert message.endswith("Raise the limit with datalog_limit('max_memory_mb', n) on the "
                            "connection, or the store table's max_memory_mb argument (0: none)")
    assert result["healthy"] == 300
    # The budget, plus the process's own (Python, SQLite, the extension) and one doubling's slack.
    # The budget plus the process's own (Python, SQLite, the extension): one growth step of a
    # relation or one text may not overshoot it.
    assert result["peak_mb"] < 256 + 128, result


def test_a_query_within_its_budget_runs(tmp_path):
    setup = ["CREATE VIRTUAL TABLE g USING datalog", "SELECT datalog_limit('max_memory_mb', 256)"]
    result = run_child(tmp_path, setup, "(query [:find ?a ?b :where [?a :n _] [?b :n _]])")
    assert result["error"] is None and result["healthy"] == 300


def test_datalog_limit_names_the_memory_limit(tmp_path):
    setup = ["CREATE VIRTUAL TABLE g USING datalog"]
    script_result = run_child(tmp_path, setup + ["SELECT datalog_limit('max_memory_mb', 0)"],
                              "(query [:find (count ?a) :where [?a :n _]])")
    assert script_result["error"] is None
