import Hummingbird

/// A request that a live route cannot serve, such as a missing or malformed query parameter:
/// answered with 400 Bad Request and the message, as plain text.
///
/// ```swift
/// guard let list = request.uri.queryParameters.get("list", as: Int.self) else {
///     throw LiveRequestError("`list` must be the id of a list, such as ?list=1")
/// }
/// ```
public struct LiveRequestError: HTTPResponseError, Sendable, CustomStringConvertible {
    /// What was wrong with the request, for the person who sent it.
    public var message: String

    /// An error whose response says `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// 400 Bad Request.
    public var status: HTTPResponse.Status { .badRequest }

    public var description: String { message }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
