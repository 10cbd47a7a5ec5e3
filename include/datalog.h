/* datalog.h: sqlite-datalog's public header.
 *
 * The extension is used two ways:
 * - loaded at run time: `.load /usr/lib/<arch>/sqlite3/datalog` in the shell,
 *   conn.load_extension(...) in Python, db.loadExtension(...) in Node. No header is needed.
 * - linked into an application (libdatalog.a, built with SQLITE_CORE): register it for every
 *   connection the application opens, before opening them:
 *
 *       #include <datalog.h>
 *       sqlite3_auto_extension((void (*)(void))sqlite3_datalog_init);
 *
 *   Link flags: `pkg-config --libs --static sqlite-datalog`.
 *
 * Versions (docs/VERSIONING.md): DATALOG_VERSION is what SELECT datalog_version() answers;
 * DATALOG_FORMAT_VERSION is the layout of the index files this build writes.
 */
#ifndef DATALOG_H
#define DATALOG_H

#include <sqlite3.h>

#include "datalog_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the datalog modules and functions on db. The loader calls it by this name; an
 * application that links the library passes it to sqlite3_auto_extension. */
int sqlite3_datalog_init(sqlite3* db, char** error_message, const struct sqlite3_api_routines* api);

#ifdef __cplusplus
}
#endif

#endif /* DATALOG_H */
