/*
 * Another process holding a sqlite lease database's write lock, for the
 * store-bound tests: `sqlite_locker DB` begins an EXCLUSIVE transaction on
 * DB, prints "locked", and holds it until its standard input closes.
 */
#include <config.h>

#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    sqlite3 *db = NULL;
    if (argc != 2 || sqlite3_open(argv[1], &db) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite_locker: cannot lock %s: %s\n", argc == 2 ? argv[1] : "(none)",
                db != NULL ? sqlite3_errmsg(db) : "usage: sqlite_locker DB");
        return 1;
    }
    puts("locked");
    fflush(stdout);
    char buf[64];
    while (read(0, buf, sizeof buf) > 0)
        ;
    sqlite3_close(db);
    return 0;
}
