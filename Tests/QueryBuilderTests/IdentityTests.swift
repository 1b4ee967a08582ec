import SQLCore
import Testing

@testable import QueryBuilder

/// Requests are cache keys, and SQLite tells text and names apart by their bytes: two requests
/// are equal only when they run the same SQL with the same bytes bound.
@Suite("Query builder: identity")
struct IdentityTests {
    private let composed = "\u{E9}"
    private let decomposed = "e\u{301}"

    @Test("values and names in two Unicode normalizations make different requests")
    func normalization() {
        #expect(composed == decomposed, "Swift's String equality is canonical equivalence")
        #expect(!same(Column("name") == composed, Column("name") == decomposed))
        #expect(!same(Column(composed), Column(decomposed)))
        #expect(!same(Column(composed).sqlExpression, Column(decomposed).sqlExpression))
        #expect(!same(Table(composed), Table(decomposed)))
        #expect(!same(Table(composed).all(), Table(decomposed).all()))
        #expect(!same(Table("t").filter(Column("a") == composed), Table("t").filter(Column("a") == decomposed)))
        #expect(!same(Table("t").filter(Column(composed) > 1), Table("t").filter(Column(decomposed) > 1)))
        #expect(!same(Table("t").sort(Column(composed).desc), Table("t").sort(Column(decomposed).desc)))
        #expect(!same(Table("t").select(Column(composed)), Table("t").select(Column(decomposed))))
        #expect(
            !same(
                Table("t").filter(Column("a").contains(composed)), Table("t").filter(Column("a").contains(decomposed))))
        #expect(
            !same(
                Table("t").filter(Column("a") == SQLExpression.value(composed)),
                Table("t").filter(Column("a") == SQLExpression.value(decomposed))))
    }

    @Test("equal requests are equal and hash equally, however they were built")
    func equalRequests() {
        let first = Table("t").filter(Column("a") == composed).sort(Column("b").desc).limit(3)
        let second = Table("t").filter(Column("a") == composed).sort(Column("b").desc).limit(3)
        #expect(same(first, second))
        #expect(first.hashValue == second.hashValue)
        let stored = Column("a") == composed
        let built = SQLExpression.comparison(Column("a").sqlExpression, .equal, value: .text(composed))
        #expect(same(stored, built))
        #expect(stored.hashValue == built.hashValue)
        #expect(same(Column("x") == Double.nan, Column("x") == Double.nan))
        #expect(Set([Column("a") == composed, Column("a") == decomposed]).count == 2)
    }
}

/// `==` of `Equatable`, out of reach of the query builder's operators.
private func same<T: Hashable>(_ lhs: T, _ rhs: T) -> Bool { lhs == rhs }
