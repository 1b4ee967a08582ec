/*
 * The floor under "CPU per write" in Benchmarks/README.md's row-level observation table: the
 * same in-memory table, the same single-row inserts (each in its own transaction), and the same
 * inbox query, in raw C, measured as CPU time of the whole process (all threads) per write.
 *
 *   A. the insert alone;
 *   B. the insert, then the affected inbox's query on the same thread;
 *   C. the insert, then the query on another thread, woken by a condition variable, with the
 *      writer waiting until that thread holds the new row (as the benchmark awaits each write).
 *
 * Build and run: gcc -O2 row-refetch.c -lsqlite3 -lpthread -o row-refetch && ./row-refetch
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static sqlite3 *db;
static sqlite3_stmt *insert, *inbox, *begin, *commit;
static long long newest;

static double cpu_microseconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

static void run(sqlite3_stmt *statement) {
    while (sqlite3_step(statement) == SQLITE_ROW) {
    }
    sqlite3_reset(statement);
}

static long long write_message(int user) {
    run(begin);
    sqlite3_bind_int(insert, 1, user);
    run(insert);
    run(commit);
    return sqlite3_last_insert_rowid(db);
}

static void fetch_inbox(int user) {
    sqlite3_bind_int(inbox, 1, user);
    newest = -1;
    for (int row = 0; sqlite3_step(inbox) == SQLITE_ROW; row++) {
        if (row == 0) newest = sqlite3_column_int64(inbox, 0);
    }
    sqlite3_reset(inbox);
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int pending_user = -1; /* 0 ends the worker */
static int fetched = 0;

static void *refetcher(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&mutex);
        while (pending_user < 0) pthread_cond_wait(&changed, &mutex);
        int user = pending_user;
        pending_user = -1;
        pthread_mutex_unlock(&mutex);
        if (user == 0) return NULL;
        fetch_inbox(user);
        pthread_mutex_lock(&mutex);
        fetched = 1;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&mutex);
    }
}

int main(void) {
    sqlite3_open(":memory:", &db);
    sqlite3_exec(db,
        "CREATE TABLE messages(id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, body TEXT NOT NULL);"
        "CREATE INDEX messages_user ON messages(user_id, id);"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)"
        " INSERT INTO messages(user_id, body) SELECT i % 1000 + 1, 'message ' || i FROM n;",
        NULL, NULL, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO messages(user_id, body) VALUES (?, 'new')", -1, &insert, NULL);
    sqlite3_prepare_v2(db, "SELECT id FROM messages WHERE user_id = ? ORDER BY id DESC LIMIT 20", -1, &inbox, NULL);
    sqlite3_prepare_v2(db, "BEGIN", -1, &begin, NULL);
    sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL);
    const int writes = 2000;
    for (int round = 0; round < 3; round++) {
        double start = cpu_microseconds();
        for (int i = 0; i < writes; i++) write_message((i * 7919) % 1000 + 1);
        double alone = (cpu_microseconds() - start) / writes;

        start = cpu_microseconds();
        for (int i = 0; i < writes; i++) {
            int user = (i * 7919) % 1000 + 1;
            long long id = write_message(user);
            fetch_inbox(user);
            if (newest != id) abort();
        }
        double same_thread = (cpu_microseconds() - start) / writes;

        pthread_t thread;
        pthread_create(&thread, NULL, refetcher, NULL);
        start = cpu_microseconds();
        for (int i = 0; i < writes; i++) {
            int user = (i * 7919) % 1000 + 1;
            long long id = write_message(user);
            pthread_mutex_lock(&mutex);
            fetched = 0;
            pending_user = user;
            pthread_cond_broadcast(&changed);
            while (!fetched) pthread_cond_wait(&changed, &mutex);
            pthread_mutex_unlock(&mutex);
            if (newest != id) abort();
        }
        double other_thread = (cpu_microseconds() - start) / writes;
        pthread_mutex_lock(&mutex);
        pending_user = 0;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&mutex);
        pthread_join(thread, NULL);

        printf("CPU us per write: insert %.2f | + refetch, same thread %.2f (%.2fx) | + refetch on another thread, "
               "awaited %.2f (%.2fx)\n",
            alone, same_thread, same_thread / alone, other_thread, other_thread / alone);
    }
    return 0;
}
