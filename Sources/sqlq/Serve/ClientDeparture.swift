#if HTTP
    import Hummingbird
    import Locking
    import NIOCore
    import NIOHTTPTypes

    /// Whether the client of a connection has gone: it closed its end, or the connection broke.
    /// A request whose client has gone stops waiting for a read connection, and its statements
    /// are interrupted (``QueryTimeLimit``), so that an abandoned request never holds one of the
    /// connections that every request shares until its time limit.
    ///
    /// Like most HTTP servers, `serve` takes a client that closes its sending half as gone: an
    /// aborted browser request and a client that half-closes look the same until an answer is
    /// written, and a half-closing HTTP client is rare.
    final class ClientDeparture: Sendable {
        /// The departure of the client whose request the current task answers, bound by
        /// ``ClientDepartureScope`` and passed on to the reads that request makes.
        @TaskLocal static var current: ClientDeparture?

        private struct State {
            var hasLeft = false
            var nextID = 0
            var observers: [Int: @Sendable () -> Void] = [:]
        }

        private let state = Lock(State())

        var hasLeft: Bool { state.withLock { $0.hasLeft } }

        /// Marks the client gone and tells the observers, once.
        func leave() {
            let observers = state.withLock { state -> [@Sendable () -> Void] in
                guard !state.hasLeft else { return [] }
                state.hasLeft = true
                defer { state.observers = [:] }
                return Array(state.observers.values)
            }
            for observer in observers { observer() }
        }

        /// Calls `observer` when the client leaves, unless ``stopObserving(_:)`` comes first;
        /// nil, and no call, when it has left already.
        func observe(_ observer: @escaping @Sendable () -> Void) -> Int? {
            state.withLock { state in
                guard !state.hasLeft else { return nil }
                defer { state.nextID += 1 }
                state.observers[state.nextID] = observer
                return state.nextID
            }
        }

        func stopObserving(_ id: Int?) {
            guard let id else { return }
            _ = state.withLock { $0.observers.removeValue(forKey: id) }
        }
    }

    /// Sees a connection's client go: the end of its input (with half-closure allowed, as
    /// Hummingbird allows it, the connection stays open) or the connection's end. One per
    /// connection, between the HTTP codec and Hummingbird's handler.
    final class ClientDepartureHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart

        let departure = ClientDeparture()

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .inputClosed? = event as? ChannelEvent { departure.leave() }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            departure.leave()
            context.fireChannelInactive()
        }
    }

    /// A request's context: Hummingbird's, and the connection it came on, whose
    /// ``ClientDepartureHandler`` tells when its client goes.
    struct ServeRequestContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        let channel: any Channel

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            channel = source.channel
        }
    }

    /// Answers each request with ``ClientDeparture/current`` bound to its connection's
    /// departure, so that its reads stop when its client goes.
    struct ClientDepartureScope: RouterMiddleware {
        func handle(
            _ request: Request, context: ServeRequestContext,
            next: (Request, ServeRequestContext) async throws -> Response
        ) async throws -> Response {
            // A connection the server made without the handler (none does) is answered as before.
            let departure = try? await context.channel.pipeline.handler(type: ClientDepartureHandler.self)
                .map(\.departure).get()
            return try await ClientDeparture.$current.withValue(departure) { try await next(request, context) }
        }
    }
#endif
