import Testing

@testable import SQLite

@Suite("Record writes rendered for other sources")
struct OtherSourcesTests {
    @Test("PostgreSQL: numbered placeholders, a NULL rowid key left to the database and returned")
    func postgreSQL() throws {
        let new = ItemRecord(title: "milk", priority: 2)
        let insert = try new.renderedWrite(.insert, dialect: .postgreSQL)
        #expect(
            insert.sql
                == #"INSERT INTO "items" ("list_id", "title", "done", "priority", "due") VALUES ($1, $2, $3, $4, $5) RETURNING "id""#
        )
        #expect(insert.arguments == [1, "milk", 0, 2, .null])
        #expect(insert.assignsRowID)

        let saved = ItemRecord(id: 7, title: "bread")
        let insertWithKey = try saved.renderedWrite(.insert, dialect: .postgreSQL, returningAll: true)
        #expect(insertWithKey.sql.hasSuffix(#"VALUES ($1, $2, $3, $4, $5, $6) RETURNING *"#))
        #expect(!insertWithKey.assignsRowID)

        let update = try saved.renderedWrite(.update, dialect: .postgreSQL)
        #expect(
            update.sql
                == #"UPDATE "items" SET "list_id" = $1, "title" = $2, "done" = $3, "priority" = $4, "due" = $5 WHERE "id" = $6"#
        )
        #expect(update.arguments == [1, "bread", 0, .null, .null, 7])
        #expect(update.keyColumns == ["id"] && update.keyValues == [7])

        let upsert = try saved.renderedWrite(.upsert, dialect: .postgreSQL)
        #expect(upsert.sql.contains(#"ON CONFLICT ("id") DO UPDATE SET "list_id" = excluded."list_id""#))
        #expect(upsert.sql.contains("$6") && !upsert.sql.contains("?"))

        let delete = try Membership(listID: 1, user: "a?b", role: "owner").renderedWrite(.delete, dialect: .postgreSQL)
        #expect(delete.sql == #"DELETE FROM "memberships" WHERE "list_id" = $1 AND "user" = $2"#)
        #expect(delete.arguments == [1, "a?b"])
    }

    @Test("SQLite's dialect renders what SQLite itself runs")
    func sqlite() throws {
        let write = try ItemRecord(id: 7, title: "bread").renderedWrite(.update, dialect: .sqlite)
        #expect(write.sql.hasSuffix(#"WHERE "id" = ?"#))
    }
}
