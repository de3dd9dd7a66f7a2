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

    /// Any POSIX path opens immutable (a `file:` URI underneath): one starting with "//" (a
    /// TMPDIR of "//tmp"), names with "?", "#", "%" and spaces (before: "invalid
    /// uri authority: tmp" for "//tmp/…").
    @Test func anyPathOpensImmutable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uri-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["a.db", "what?.db", "no #1.db", "100%25.db", "x:y.db"] {
            try Connection(path: folder + "/" + name).execute("CREATE TABLE t(x); INSERT INTO t VALUES (7)")
            for path in ["/" + folder + "/" + name, folder + "//" + name, folder + "/./" + name] {
                let db = try Connection(path: path, mode: .readOnly(immutable: true))
                #expect(try db.scalarInt("SELECT x FROM t") == 7, "\(path)")
            }
        }
    }

    /// How many descriptors this process has open.
    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    @Test func failedOpensOfANonDatabaseLeakNoDescriptors() throws {
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("bogus-\(UUID()).db").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: bogus))
        defer { try? FileManager.default.removeItem(atPath: bogus) }
        let before = try openDescriptors()
        for _ in 0..<300 {
            for mode in [Connection.Mode.readOnly(immutable: true), .readOnly(immutable: false)] {
                #expect(throws: SQLiteError.self) { _ = try Connection(path: bogus, mode: mode) }
            }
        }
        // A leak would be 600 descriptors; the slack is for other suites running alongside.
        #expect(try openDescriptors() - before < 50)
    }

    @Test func aConnectionWithCachedStatementsIsFreedAndClosesItsFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cycle-\(UUID()).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Connection(path: path).execute("CREATE TABLE t(x)")
        let before = try openDescriptors()
        weak var last: Connection?
        for i in 0..<300 {
            let db = try Connection(path: path, mode: .readOnly(immutable: false))
            let statement = try db.cached("SELECT count(*) FROM t WHERE x = ?")
            try statement.bind([.int(Int64(i))])
            #expect(try statement.step())
            last = db
        }
        #expect(last == nil, "the statement cache kept its connection alive")
        #expect(try openDescriptors() - before < 50)
    }

    @Test func aStatementMayOutliveItsConnection() throws {
        var db: Connection? = try Connection(path: ":memory:")
        try db?.execute("CREATE TABLE t(x)")
        try db?.execute("INSERT INTO t VALUES (7)")
        let statement = try #require(try db?.prepare("SELECT x FROM t"))
        db = nil  // sqlite3_close_v2 keeps the database until the statement is finalized
        #expect(try statement.step())
        #expect(statement.int(0) == 7)
        #expect(try !statement.step())
    }
}
