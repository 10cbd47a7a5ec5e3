/* An application that links libdatalog.a (built with SQLITE_CORE) instead of loading the
 * extension: it registers the extension for every connection, then answers a Datalog query.
 * Prints the query's answer and datalog_version(); fails if the version is not the header's. */
#include <stdio.h>
#include <string.h>

#include <datalog.h>

static int print_row(void* unused, int columns, char** values, char** names) {
  (void)unused;
  (void)names;
  for (int i = 0; i < columns; ++i) printf("%s%s", i ? "|" : "", values[i] ? values[i] : "NULL");
  printf("\n");
  return 0;
}

int main(void) {
  sqlite3* db = NULL;
  char* error = NULL;
  if (sqlite3_auto_extension((void (*)(void))sqlite3_datalog_init) != SQLITE_OK) return 2;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 3;
  const char* sql =
      "CREATE VIRTUAL TABLE g USING datalog;"
      "SELECT datalog_exec('g', '(transact [[:alice :name \"Alice\"] [:alice :knows :bob]"
      " [:bob :name \"Bob\"]])');"
      "SELECT c1 FROM datalog_q('g', '(query [:find ?n :where [:alice :knows ?f] [?f :name ?n]])');"
      "SELECT datalog_version();";
  if (sqlite3_exec(db, sql, print_row, NULL, &error) != SQLITE_OK) {
    fprintf(stderr, "error: %s\n", error);
    return 4;
  }
  sqlite3_stmt* stmt = NULL;
  sqlite3_prepare_v2(db, "SELECT datalog_version()", -1, &stmt, NULL);
  const int same = sqlite3_step(stmt) == SQLITE_ROW &&
                   strcmp((const char*)sqlite3_column_text(stmt, 0), DATALOG_VERSION) == 0;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return same ? 0 : 5;
}
