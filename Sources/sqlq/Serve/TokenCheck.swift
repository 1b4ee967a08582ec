#if HTTP
    import HTTPTypes
    import Hummingbird

    /// `--token`: every request must carry the token, as `Authorization: Bearer TOKEN` or as the
    /// cookie that visiting `/?token=TOKEN` sets (HttpOnly, SameSite=Strict), after which the
    /// browser is sent on to the page without the token in its address.
    struct TokenCheck<Context: RequestContext>: RouterMiddleware {
        let token: String

        static var cookieName: String { "sqlq_token" }

        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            if let given = try? QueryString.decode(request.uri.query).last(where: { $0.name == "token" })?.value {
                guard Self.matches(given, token) else {
                    return Self.refusal("the token in the URL is not this server's")
                }
                var headers = HTTPFields()
                headers[.setCookie] = "\(Self.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/"
                headers[.location] = "/"
                headers[.cacheControl] = "no-store"
                return Response(status: .seeOther, headers: headers)
            }
            if let authorization = request.headers[.authorization] {
                guard authorization.hasPrefix("Bearer "), Self.matches(String(authorization.dropFirst(7)), token) else {
                    return Self.refusal("the Authorization header does not hold this server's token")
                }
                return try await next(request, context)
            }
            for header in request.headers[values: .cookie] {
                for pair in header.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, parts[0].trimmingPrefix(" ") == Self.cookieName,
                        Self.matches(String(parts[1]), token)
                    {
                        return try await next(request, context)
                    }
                }
            }
            return Self.refusal("this server needs its token")
        }

        /// Compares in time that does not depend on where the texts differ.
        static func matches(_ given: String, _ token: String) -> Bool {
            let (a, b) = (Array(given.utf8), Array(token.utf8))
            var difference = UInt8(a.count == b.count ? 0 : 1)
            for index in b.indices { difference |= b[index] ^ (index < a.count ? a[index] : 0) }
            return difference == 0
        }

        static func refusal(_ reason: String) -> Response {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.wwwAuthenticate] = "Bearer"
            return Response(
                status: .unauthorized, headers: headers,
                body: ResponseBody(
                    byteBuffer: ByteBufferAllocator().buffer(
                        string: reason
                            + ": send Authorization: Bearer TOKEN, or open the URL sqlq serve printed (/?token=TOKEN) once in this browser\n"
                    )))
        }
    }

    /// Headers for every answer: the Content-Security-Policy that forbids inline script and
    /// style and anything from elsewhere, and no guessing of content types.
    struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
        static var contentSecurityPolicy: String { "default-src 'self'; script-src 'self'; style-src 'self'" }

        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            var response: Response
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
            response.headers[.xContentTypeOptions] = "nosniff"
            response.headers[.referrerPolicy] = "no-referrer"
            return response
        }
    }

    extension HTTPField.Name {
        static let contentSecurityPolicy = Self("Content-Security-Policy")!
        static let xContentTypeOptions = Self("X-Content-Type-Options")!
        static let referrerPolicy = Self("Referrer-Policy")!
    }
#endif
