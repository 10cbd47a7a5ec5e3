-- 1M facts (250,000 ident entities: a name, an age, a reference, a score), entity by entity, in one
-- INSERT: the sizes docs/STORAGE.md quotes. Run from the repository root:
--   rm -f /tmp/m.db*; sqlite3 /tmp/m.db < bench/sizes/one_million_facts.sql; ls -l /tmp/m.db /tmp/m.db-g.graph
--   mdb_stat -a -n /tmp/m.db-g.graph   (lmdb-utils: pages per table)
.load ./build/datalog
PRAGMA journal_mode=WAL;
CREATE VIRTUAL TABLE g USING datalog;
INSERT INTO g(e,a,v,vtype)
SELECT ':e'||s.value, x.column1,
  CASE x.column1 WHEN ':person/name' THEN 'name-'||s.value WHEN ':person/age' THEN s.value % 90
    WHEN ':friend' THEN ':e'||(s.value*7 % 250000 + 1) ELSE s.value * 1.5 END,
  CASE x.column1 WHEN ':friend' THEN 'ref' WHEN ':person/name' THEN 'string' WHEN ':person/age' THEN 'integer' ELSE 'float' END
FROM generate_series(1,250000) s, (VALUES (':person/name'),(':person/age'),(':friend'),(':score')) x;
