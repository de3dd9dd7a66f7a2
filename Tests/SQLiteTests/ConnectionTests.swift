import Foundation
import SQLite
import Testing

@Suite("SQLite wrapper")
struct ConnectionTests {
    @Test func roundTripsValuesAndUsesRTreeAndFTS5() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t(i INTEGER, d REAL, s TEXT, b BLOB, n)")
        let insert = try db.cached("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        try insert.run([.int(42), .double(2.5), .text("헬싱키"), .blob([1, 2, 3]), .null])
        let select = try db.prepare("SELECT i, d, s, b, n FROM t")
        #expect(try select.step())
        #expect(select.int(0) == 42)
        #expect(select.double(1) == 2.5)
        #expect(select.text(2) == "헬싱키")
        #expect(select.blob(3) == [1, 2, 3])
        #expect(select.isNull(4))
        #expect(try !select.step())

        try db.execute("CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX, minY, maxY)")
        try db.execute("INSERT INTO r VALUES (1, 0, 1, 0, 1), (2, 5, 6, 5, 6)")
        #expect(try db.scalarInt("SELECT id FROM r WHERE minX <= 0.5 AND maxX >= 0.5") == 1)

        try db.execute("CREATE VIRTUAL TABLE f USING fts5(name, tokenize = 'unicode61 remove_diacritics 2')")
        try db.execute("INSERT INTO f VALUES ('São Paulo')")
        #expect(try db.scalarInt("SELECT count(*) FROM f WHERE f MATCH 'sao'") == 1)
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let db = try Connection(path: ":memory:")
        #expect {
            try db.execute("SELEKT 1")
        } throws: { error in
            guard let e = error as? SQLiteError else { return false }
            return e.code.primary == .error && e.message.contains("syntax") && e.sql == "SELEKT 1"
        }
    }

    @Test func transactionRollsBackOnError() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t(x)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
    }

    @Test func readOnlyOpenOfAMissingOrBogusFileFailsNamingIt() throws {
        #expect {
            _ = try Connection(path: "/nonexistent/x.db", mode: .readOnly(immutable: true))
        } throws: { ($0 as? SQLiteError)?.message.contains("/nonexistent/x.db") == true }

        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("bogus-\(UUID()).db").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: bogus))
        defer { try? FileManager.default.removeItem(atPath: bogus) }
        #expect {
            _ = try Connection(path: bogus, mode: .readOnly(immutable: true))
        } throws: { ($0 as? SQLiteError)?.code.primary == .notADatabase }
    }
}
