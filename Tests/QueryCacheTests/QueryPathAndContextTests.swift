import Foundation
import QueryCache
import Testing

@Suite("QueryPath and QueryContext")
struct QueryPathAndContextTests {
    @Test("Array-literal paths compare element-wise and match by prefix")
    func paths() {
        let path: QueryPath = ["nearby-events", 1, "x"]
        #expect(path == QueryPath(["nearby-events", 1, "x"]))
        #expect(path != ["nearby-events", "1", "x"])
        #expect(QueryPath(["nearby-events"]).isPrefix(of: path))
        #expect(QueryPath([]).isPrefix(of: path))
        #expect(path.isPrefix(of: path))
        #expect(!path.isPrefix(of: ["nearby-events"]))
        #expect(!QueryPath(["other"]).isPrefix(of: path))
        #expect(path.count == 3)
        #expect(path.appending("y").count == 4)
        #expect(path.description == "[nearby-events, 1, x]")
    }

    @Test("Hashable queries get a path holding themselves")
    func defaultPath() {
        #expect(PlayerQuery(id: 1).path == [PlayerQuery(id: 1)])
        #expect(PlayerQuery(id: 1).path != PlayerQuery(id: 2).path)
    }

    @Test("Built-in context values have the documented defaults")
    func defaults() {
        let context = QueryContext()
        #expect(context.retryIndex == 0)
        #expect(context.maxRetries == 3)
        #expect(context.queryClock is SystemTimeQueryClock)
        #expect(context.queryDelayer is TaskSleepQueryDelayer)
        #expect(context.queryClient == nil)
        #expect(context.queryStaleDuration == nil)
        #expect(context.queryDeduplicatesFetches)
    }

    @Test("Clocks: custom, frozen and system time")
    func clocks() {
        let clock = TestClock(autoAdvance: 1)
        let custom: any QueryClock = .custom { clock.now }
        let first = custom.now()
        #expect(custom.now() == first.addingTimeInterval(1))
        let frozen = custom.frozen()
        #expect(frozen.now() == frozen.now())
        let system: any QueryClock = .systemTime
        #expect(abs(system.now().timeIntervalSinceNow) < 60)
    }

    @Test("The client reference in a context is weak")
    func weakClient() {
        var context = QueryContext()
        do {
            let client = QueryClient()
            context.queryClient = client
            #expect(context.queryClient === client)
        }
        #expect(context.queryClient == nil)
    }
}
