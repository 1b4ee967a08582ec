import Foundation
import QueryCache
import Testing

// The code of the "Utilizing the query context" article
// (Sources/QueryCache/QueryCache.docc/UtilizingTheQueryContext.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

/// Where quotes come from: a server in the program, a fixed table in tests.
protocol QuoteSource: Sendable {
    func price(of symbol: String) async throws -> Double
}

struct UnknownSymbol: Error {
    var symbol: String
}

struct FixedQuotes: QuoteSource {
    var prices: [String: Double]
    func price(of symbol: String) async throws -> Double {
        guard let price = prices[symbol] else { throw UnknownSymbol(symbol: symbol) }
        return price
    }
}

extension QueryContext {
    var quoteSource: any QuoteSource {
        get { self[QuoteSourceKey.self] }
        set { self[QuoteSourceKey.self] = newValue }
    }

    private enum QuoteSourceKey: Key {
        static let defaultValue: any QuoteSource = FixedQuotes(prices: [:])
    }

    var currencySymbol: String {
        get { self[CurrencySymbolKey.self] }
        set { self[CurrencySymbolKey.self] = newValue }
    }

    private enum CurrencySymbolKey: Key {
        static let defaultValue = "$"
    }
}

enum UtilizingTheQueryContextArticle {
    struct QuoteQuery: QueryRequest, Hashable {
        let symbol: String

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<String>
        ) async throws -> String {
            let price = try await context.quoteSource.price(of: symbol)
            let attempt = context.retryIndex  // 0 on the first attempt, 1 on the first retry, …
            return "\(symbol) \(context.currencySymbol)\(price) (attempt \(attempt + 1))"
        }
    }

    struct EuroQuoteQuery: QueryRequest, Hashable {
        let symbol: String

        func setup(context: inout QueryContext) {
            context.currencySymbol = "€"
            context.maxRetries = 1
        }

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<String>
        ) async throws -> String {
            let price = try await context.quoteSource.price(of: symbol)
            return "\(symbol) \(context.currencySymbol)\(price)"
        }
    }
}

@Suite struct UtilizingTheQueryContextTests {
    typealias QuoteQuery = UtilizingTheQueryContextArticle.QuoteQuery
    typealias EuroQuoteQuery = UtilizingTheQueryContextArticle.EuroQuoteQuery

    @Test func article() async throws {
        var context = QueryContext()
        context.quoteSource = FixedQuotes(prices: ["ACME": 12.5, "INIT": 3])
        context.queryDelayer = .noDelay
        let client = QueryClient(defaultContext: context)

        let quote = try await client.store(for: QuoteQuery(symbol: "ACME")).fetch()
        // "ACME $12.5 (attempt 1)"

        #expect(quote == "ACME $12.5 (attempt 1)")

        let euros = client.store(for: EuroQuoteQuery(symbol: "ACME"))
        print(euros.context.currencySymbol, euros.context.maxRetries)  // € 1

        #expect(try await euros.fetch() == "ACME €12.5")
        #expect(euros.context.maxRetries == 1)

        let store = client.store(for: QuoteQuery(symbol: "ACME"))
        store.context.currencySymbol = "£"  // this store only

        #expect(try await store.fetch() == "ACME £12.5 (attempt 1)")
        #expect(client.store(for: QuoteQuery(symbol: "OTHER")).context.currencySymbol == "$")

        let noRetries = client.store(for: QuoteQuery(symbol: "NONE").retry(limit: 0))
        let patient = client.store(for: QuoteQuery(symbol: "INIT").stale(after: 60).timeout(5))

        await #expect(throws: UnknownSymbol.self) { try await noRetries.fetch() }
        #expect(try await patient.fetch() == "INIT $3.0 (attempt 1)")
        #expect(!patient.isStale)
    }
}
