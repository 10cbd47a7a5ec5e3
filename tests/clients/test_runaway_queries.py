"""A long Datalog evaluation stops when the application asks: sqlite3_interrupt, or a progress
handler that returns non-zero (Python's set_progress_handler). The query here builds a 9M-row
product before its filter can run; unstopped it takes seconds.

"Stops within a second" is measured in CPU time of the thread that runs the query, from the
moment it is asked to stop: a busy machine stretches wall time, not the work done between two
polls. A generous wall-clock bound still catches a query that never stops."""
import sqlite3
import threading
import time

import pytest

from conftest import connect, rows

RUNAWAY = "(query [:find ?a ?b :where [?a :n ?x] [?b :n ?y] [(< ?x ?y)]])"
HANG = 30.0  # seconds of wall time that only a query that never stops would take


class Interrupter:
    """Calls conn.interrupt() from another thread after `delay` seconds, noting the CPU time the
    calling thread (the one that runs the query) had used at that moment."""

    def __init__(self, conn, delay):
        query_thread = time.pthread_getcpuclockid(threading.get_ident())
        self.cpu_at_interrupt = None

        def fire():
            self.cpu_at_interrupt = time.clock_gettime(query_thread)
            conn.interrupt()

        self.timer = threading.Timer(delay, fire)

    def __enter__(self):
        self.started = time.monotonic()
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.join()

    def assert_stopped_soon(self):
        assert self.cpu_at_interrupt is not None, "the query ended before it was interrupted"
        assert time.thread_time() - self.cpu_at_interrupt < 1.0
        assert time.monotonic() - self.started < HANG


@pytest.fixture
def g(tmp_path):
    conn = connect(tmp_path / "app.db", check_same_thread=False)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', ?)",
                 ("(transact [" + " ".join(f"[{i} :n {i}]" for i in range(1, 3001)) + "])",))
    yield conn
    conn.close()


def test_progress_handler_is_called_while_datalog_runs_and_stops_it(g):
    calls = []
    started = time.monotonic()
    stopped_at = []  # the query thread's CPU time when the handler first asked it to stop

    def handler():  # lets the query run 0.3 s, then asks it to stop
        calls.append(time.monotonic())
        if time.monotonic() - started <= 0.3:
            return 0
        if not stopped_at:
            stopped_at.append(time.thread_time())
        return 1

    g.set_progress_handler(handler, 1000)
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        rows(g, "SELECT count(*) FROM datalog_q('g', ?)", (RUNAWAY,))
    # Polled every few milliseconds, so stopped soon after the handler asked.
    assert time.thread_time() - stopped_at[0] < 1.0
    assert time.monotonic() - started < HANG
    assert len(calls) >= 10
    g.set_progress_handler(None, 0)
    assert rows(g, "SELECT count(*) FROM g") == [(3000,)]  # the connection is healthy


def test_interrupt_stops_a_runaway_query(g):
    with Interrupter(g, 0.2) as stop:
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            rows(g, "SELECT count(*) FROM datalog_q('g', ?)", (RUNAWAY,))
    stop.assert_stopped_soon()
    assert rows(g, "SELECT count(*) FROM g") == [(3000,)]


# Other long loops: rules, aggregation over a large product, string functions per row. Each is
# stopped within a second of an interrupt at 0.2 s (unstopped each takes several seconds).
SHAPES = {
    "3-way rule": ("(rule [(pair ?a ?b) [?a :n ?x] [?b :n ?y] [(< ?x ?y)]])",
                   "(query [:find (count ?a) :where (pair ?a ?b)])"),
    "aggregation": (None, "(query [:find ?x (count ?b) :where [?a :n ?x] [?b :n ?y] [(< ?x ?y)]])"),
    "string functions": (None, "(query [:find (count ?s) :where [?a :n ?x] [?b :n ?y] "
                               "[(str ?x \"-\" ?y) ?s] [(count ?s) ?l] [(> ?l 100)]])"),
    "window over a large product": (None, "(query [:find ?a ?b (rank :over (:order-by ?y)) "
                                          ":where [?a :n ?x] [?b :n ?y] [(< ?x ?y)] [(< ?y 1500)]])"),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_interrupt_stops_every_long_loop(g, shape):
    rule, query = SHAPES[shape]
    g.execute("SELECT datalog_limit('max_results', 0)")
    g.execute("SELECT datalog_limit('max_derived_facts', 0)")
    g.execute("SELECT datalog_limit('max_memory_mb', 0)")
    if rule:
        g.execute("SELECT datalog_exec('g', ?)", (rule,))
    with Interrupter(g, 0.2) as stop:
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            rows(g, "SELECT * FROM datalog_q('g', ?)", (query,))
    stop.assert_stopped_soon()
    assert rows(g, "SELECT count(*) FROM g") == [(3000,)]


def test_interrupt_stops_a_long_transact_and_writes_nothing(g):
    """Reading and writing a 600,000-fact transaction takes seconds: the reader and the write loop
    poll too, and an interrupt leaves the graph as it was."""
    text = "(transact [" + " ".join(f"[{i} :m {i}]" for i in range(1, 600_001)) + "])"
    with Interrupter(g, 0.2) as stop:
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            rows(g, "SELECT datalog_exec('g', ?)", (text,))
    stop.assert_stopped_soon()
    assert rows(g, "SELECT count(*) FROM g") == [(3000,)]


def test_the_probe_a_graph_keeps_between_commands_still_sees_a_progress_handler(g):
    """datalog_exec's interrupt probe prepares its statements once per table and connection and
    keeps them: commands after others, on kept statements, still stop when asked (the second
    interrupted one reuses the statement the first prepared for the handler), and the next runs."""
    for i in range(3):  # short commands: the probe's first statement is prepared and kept
        assert rows(g, "SELECT datalog_exec('g', ?)", (f"(transact [[:kept :n {i}]])",))
    # Long enough (well over the probe's 10 ms) for the probe to call the progress handler.
    text = "(transact [" + " ".join(f"[{i} :m {i}]" for i in range(1, 200_001)) + "])"
    g.set_progress_handler(lambda: 1, 1000)
    for _ in range(2):
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            rows(g, "SELECT datalog_exec('g', ?)", (text,))
    g.set_progress_handler(None, 0)
    assert rows(g, "SELECT count(*) FROM g WHERE a = ':m'") == [(0,)]
    assert rows(g, "SELECT datalog_exec('g', ?)", ("(transact [[1 :m 1] [2 :m 2]])",))
    assert rows(g, "SELECT count(*) FROM g WHERE a = ':m'") == [(2,)]
