-- Deterministic demo data: 5 lists and 12,000 items, the same on every machine.
INSERT INTO lists (id, name, color) VALUES
    (1, 'Groceries', 'green'),
    (2, 'Work', 'blue'),
    (3, 'Home', 'orange'),
    (4, 'Errands', 'purple'),
    (5, 'Reading', NULL);

WITH RECURSIVE n(i) AS (
    SELECT 1
    UNION ALL
    SELECT i + 1 FROM n WHERE i < 12000
)
INSERT INTO items (list_id, title, notes, priority, done, due, created_at)
SELECT
    1 + (i % 5),
    CASE i % 6
        WHEN 0 THEN 'Buy '
        WHEN 1 THEN 'Call '
        WHEN 2 THEN 'Fix '
        WHEN 3 THEN 'Read about '
        WHEN 4 THEN 'Plan '
        ELSE 'Review '
    END
    || CASE (i * 7) % 10
        WHEN 0 THEN 'milk'
        WHEN 1 THEN 'the bike'
        WHEN 2 THEN 'taxes'
        WHEN 3 THEN 'the garden'
        WHEN 4 THEN 'SQLite'
        WHEN 5 THEN 'the roof'
        WHEN 6 THEN 'coffee beans'
        WHEN 7 THEN 'the 100% plan'
        WHEN 8 THEN 'Mom''s birthday'
        ELSE 'snake_case names'
    END
    || ' #' || i,
    CASE WHEN i % 4 = 0 THEN NULL ELSE 'note for item ' || i END,
    (i * 13) % 6,
    CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END,
    CASE WHEN i % 5 = 0 THEN NULL
         ELSE strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || ((i * 37) % 365) || ' days', '+' || (i % 24) || ' hours')
    END,
    strftime('%Y-%m-%d %H:%M:%f', '2025-06-01', '+' || (i * 17 % 4000) || ' hours', '+' || (i % 60) || ' minutes')
FROM n;
