#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// Turns off SQLite's legacy fallback that reads an unknown "double-quoted" identifier in a
/// query as a string literal, so a misspelt column is an error instead of a silent constant.
/// sqlite3_db_config is variadic, which Swift cannot call, hence this wrapper.
static inline int csqlite_disable_double_quoted_strings(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_DQS_DML
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
#else
    return SQLITE_OK;
#endif
}
#endif
