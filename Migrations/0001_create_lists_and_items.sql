-- The demo database: to-do lists and their items.
-- Dates are TEXT 'yyyy-MM-dd HH:mm:ss.SSS' in UTC, SQLite's own format.
CREATE TABLE lists (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    color TEXT
);

CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    list_id INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    notes TEXT,
    priority INTEGER NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 5),
    done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
    due TEXT,
    created_at TEXT NOT NULL
);

CREATE INDEX items_by_list ON items(list_id, done);
CREATE INDEX items_by_priority ON items(priority, due);
CREATE INDEX items_by_due ON items(due);
