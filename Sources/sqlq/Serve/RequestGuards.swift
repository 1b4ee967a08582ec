#if HTTP
    import HTTPTypes
    import Hummingbird
    import NIOCore
    import NIOHTTP1
    import NIOHTTPTypes

    /// The host names a request's `Host` may give: a web page of another domain that resolves to
    /// this machine (DNS rebinding) sends its own name, so only the names of the address `serve`
    /// is bound to, and `--allow-host`'s, are answered.
    struct AllowedHosts: Sendable {
        /// Lowercased, without brackets or a port.
        private let names: Set<String>
        /// Bound to every address (`0.0.0.0`, `::`): any IP address names it, though no domain does.
        private let anyAddress: Bool

        init(host: String, allowed: [String]) {
            var names: Set<String> = ["127.0.0.1", "localhost", "::1"]
            for name in [host] + allowed { names.insert(Self.normalized(name)) }
            self.names = names
            anyAddress = ["0.0.0.0", "::", ""].contains(Self.normalized(host))
        }

        /// The names, as the message that refuses a request lists them.
        var listed: String { names.sorted().map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ", ") }

        /// Whether `authority` (a `Host` header: a name, `1.2.3.4` or `[::1]`, with or without a
        /// port) names this server.
        func allows(_ authority: String) -> Bool {
            let name = Self.normalized(Self.hostPart(of: authority))
            if names.contains(name) { return true }
            return anyAddress && Self.isIPAddress(name)
        }

        /// The host of an authority: what precedes the port, without IPv6's brackets.
        private static func hostPart(of authority: String) -> Substring {
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                return authority[authority.index(after: authority.startIndex)..<close]
            }
            return authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }

        private static func normalized(_ name: some StringProtocol) -> String {
            var name = name.lowercased()
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            // A fully qualified name's root dot names the same host.
            if name.hasSuffix(".") { name.removeLast() }
            return name
        }

        private static func isIPAddress(_ name: String) -> Bool {
            if name.contains(":") { return name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts.allSatisfy { part in UInt8(part).map { _ in true } ?? false }
        }
    }

    /// Refuses, before anything else runs, a request whose `Host` does not name this server (421),
    /// one without a `Host` (400), and a URL longer than ``maximumURLLength`` (414).
    struct RequestGuard<Context: RequestContext>: RouterMiddleware {
        let hosts: AllowedHosts

        /// The longest path and query served: far beyond any view's URL, short of what the HTTP
        /// layer reads at most (``ParseFailureAnswer/maximumHeadLength``).
        static var maximumURLLength: Int { 64 * 1024 }

        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            let length = request.head.path?.utf8.count ?? 0
            guard length <= Self.maximumURLLength else {
                return plainText(
                    .uriTooLong,
                    "the URL is \(length) bytes long; sqlq serve takes at most \(Self.maximumURLLength): "
                        + "shorten the filter, or run it with sqlq query\n")
            }
            guard let authority = request.head.authority, !authority.isEmpty else {
                return plainText(
                    .badRequest, "the request has no Host header; sqlq serve answers only to " + hosts.listed + "\n")
            }
            guard hosts.allows(authority) else {
                return plainText(
                    .misdirectedRequest,
                    "this server does not answer to the host \"\(authority)\": it answers to \(hosts.listed) "
                        + "(with any port); start sqlq serve with --allow-host NAME to answer to another name\n")
            }
            return try await next(request, context)
        }
    }

    /// A plain-text answer: for the refusals that come before any page is chosen.
    func plainText(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBufferAllocator().buffer(string: message)))
    }

    /// Answers a request the HTTP parser refuses (bytes that are not HTTP, a request line or
    /// headers over ``maximumHeadLength``) with a message, where Hummingbird would send an empty
    /// 400. It sits between the HTTP codec and Hummingbird's handler.
    final class ParseFailureAnswer: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        /// The most bytes of a request line and its headers that the parser reads.
        static let maximumHeadLength = 1024 * 1024

        private var requests = 0
        private var answers = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) { requests += 1 }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) { answers += 1 }
            context.write(data, promise: promise)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // While an earlier request is still being answered, a new answer would corrupt it:
            // Hummingbird then closes the connection as it does.
            guard let error = error as? HTTPParserError, requests == answers else {
                context.fireErrorCaught(error)
                return
            }
            let (status, message): (HTTPResponse.Status, String) =
                switch error {
                case .headerOverflow:
                    (
                        .uriTooLong,
                        "the request line or headers are longer than \(Self.maximumHeadLength) bytes; "
                            + "sqlq serve takes a URL of at most \(RequestGuard<BasicRequestContext>.maximumURLLength)\n"
                    )
                default:
                    (
                        .badRequest,
                        "this request is not HTTP that sqlq serve can read (\(error)): a URL must be ASCII, "
                            + "with any other byte percent-encoded as UTF-8\n"
                    )
                }
            var fields = HTTPFields()
            fields[.contentType] = "text/plain; charset=utf-8"
            fields[.connection] = "close"
            fields[.contentLength] = String(message.utf8.count)
            context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: message))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            // The parser cannot go on after its error: the connection ends with this answer.
            context.close(promise: nil)
        }
    }
#endif
