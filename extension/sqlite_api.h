// extension/sqlite_api.h: the one way extension code reaches SQLite.
//
// Every SQLite call goes through the host's API table (sqlite3ext.h), so the extension works in
// whichever SQLite loaded it (the shell's, Python's, better-sqlite3's own) and never links
// libsqlite3. entry.cpp defines the table (SQLITE_EXTENSION_INIT1); other files declare it here.
#pragma once

#include <sqlite3ext.h>

#ifndef DATALOG_EXTENSION_MAIN
SQLITE_EXTENSION_INIT3
#endif
