#ifndef PATHFINDER_CSQLITE_SHIM_H
#define PATHFINDER_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it. */
static inline sqlite3_destructor_type pathfinder_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_config is variadic, which Swift cannot call. Before SQLite initializes (the first
   connection): no memory statistics, which take a process-wide mutex on every allocation. */
static inline int pathfinder_sqlite_no_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
