"""A second process for test_processes.py: opens the graph of table w of an SQLite database (the
same database file as the test's own connection: a graph belongs to one database) and does one
thing, reporting on stdout line by line (flushed), taking orders on stdin.

usage: graph_child.py MODE EXTENSION DATABASE [BUSY_TIMEOUT_MS]
  BUSY_TIMEOUT_MS is SQLite's busy timeout (how long a writer waits for SQLite's write lock);
  the default is 5000.
  hold   BEGIN, insert (':child', ':n', 1); print 'holding'; then per stdin line 'commit' or
         'rollback' do it and print 'done'
  write  insert (':child', ':n', 2) in autocommit; print 'ok' or 'error <errorname> <message>'
  read   print the values of ':n' as 'values 1,2,...'
  bulk   BEGIN; insert 3,000,000 facts (':bulk'); print 'inserting' while the statement runs;
         COMMIT; print 'committed' (seconds of work: the parent kills it midway)
  many   commit transactions of 10 facts each ([tx, ':many', 0..9]) until killed; print
         'tx <n>' after each commit
"""
import sqlite3
import sys


def main():
    mode, extension, database = sys.argv[1:4]
    busy = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
    conn = sqlite3.connect(database, isolation_level=None, timeout=busy / 1000)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS w USING datalog")

    def say(line):
        print(line, flush=True)

    if mode == "hold":
        conn.execute("BEGIN")
        conn.execute("INSERT INTO w(e, a, v) VALUES (':child', ':n', 1)")
        say("holding")
        for line in sys.stdin:
            conn.execute(line.strip().upper())
            say("done")
            break
    elif mode == "write":
        try:
            conn.execute("INSERT INTO w(e, a, v) VALUES (':child', ':n', 2)")
            say("ok")
        except sqlite3.Error as e:
            say(f"error {e.sqlite_errorname} {e}")
    elif mode == "read":
        got = conn.execute("SELECT v FROM w WHERE a = ':n' ORDER BY v").fetchall()
        say("values " + ",".join(str(v) for (v,) in got))
    elif mode == "bulk":
        calls = [0]

        def progress():
            calls[0] += 1
            if calls[0] == 20:
                say("inserting")
            return 0
        conn.set_progress_handler(progress, 10000)
        conn.execute("BEGIN")
        conn.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000)
            INSERT INTO w(e, a, v) SELECT ':bulk', ':bulk', i FROM n""")
        conn.execute("COMMIT")
        say("committed")
    elif mode == "many":
        while True:
            conn.execute("BEGIN")
            tx = conn.execute("SELECT coalesce(max(tx), 0) + 1 FROM w").fetchone()[0]
            conn.executemany("INSERT INTO w(e, a, v) VALUES (?, ':many', ?)",
                             [(tx, i) for i in range(10)])
            conn.execute("COMMIT")
            say(f"tx {tx}")
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
