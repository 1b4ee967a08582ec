import Hummingbird
import LiveQuery

extension RouterMethods {
    /// Serves the live value of the key that `key` makes from each request, as server-sent
    /// events (see ``LiveEventStreams``).
    ///
    /// ```swift
    /// router.get("items", live: live) { request, context in
    ///     guard let list = request.uri.queryParameters.get("list", as: Int.self) else {
    ///         throw LiveRequestError("`list` must be the id of a list, such as ?list=1")
    ///     }
    ///     return .fetch(ListItems(list: list), database: db)
    /// }
    /// ```
    ///
    /// `key` throws ``LiveRequestError`` for a request it cannot serve, which gets 400 Bad
    /// Request with the error's message; any `HTTPResponseError` gets its own status.
    @discardableResult
    public func get<Value: Encodable & Sendable>(
        _ path: RouterPath = "", live streams: LiveEventStreams,
        key: @escaping @Sendable (Request, Context) throws -> SharedReaderKey<Value>
    ) -> Self {
        get(path) { request, context in
            try streams.response(streaming: key(request, context), for: request)
        }
    }
}
