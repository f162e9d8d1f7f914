#ifndef GEOWAKE_CSQLITE_SHIM_H
#define GEOWAKE_CSQLITE_SHIM_H
// The system SQLite: the live engine's embedded store (WAL mode).
#include <sqlite3.h>
#endif
