import Foundation
import QueryCache
import Testing

@Suite("Query paths of requests, and QueryContext")
struct QueryPathAndContextTests {
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
