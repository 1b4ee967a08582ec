#if HTTP
    import HTTPTypes
    import Hummingbird
    import Locking

    /// What `--token` lets in: the token itself, as `Authorization: Bearer TOKEN`, and one
    /// browser, through the one-time login URL that `serve` prints. That URL holds a random code,
    /// not the token, and works once: its visit sets a cookie holding a random session secret.
    final class Credentials: Sendable {
        let token: String
        /// The code of the one-time login URL, `/-/login?code=CODE`.
        let loginCode: String
        private let state = Lock(State())

        static let loginPath = "/-/login"

        /// The path and query of the one-time login URL.
        var loginURL: String { Self.loginPath + "?code=" + loginCode }

        private struct State {
            var loginUsed = false
            var session: String?
        }

        init(token: String) {
            self.token = token
            loginCode = Self.randomSecret()
        }

        /// The outcome of a visit to the login URL.
        enum Login: Equatable {
            /// The first visit with the right code: the session's secret, for the cookie.
            case session(String)
            case used
            case wrongCode
        }

        func logIn(code: String) -> Login {
            guard Self.matches(code, loginCode) else { return .wrongCode }
            return state.withLock { state in
                guard !state.loginUsed else { return .used }
                state.loginUsed = true
                let secret = Self.randomSecret()
                state.session = secret
                return .session(secret)
            }
        }

        func isSession(_ secret: String) -> Bool {
            guard let session = state.withLock({ $0.session }) else { return false }
            return Self.matches(secret, session)
        }

        /// Compares in time that does not depend on where the texts differ.
        static func matches(_ given: String, _ secret: String) -> Bool {
            let (a, b) = (Array(given.utf8), Array(secret.utf8))
            var difference = UInt8(a.count == b.count ? 0 : 1)
            for index in b.indices { difference |= b[index] ^ (index < a.count ? a[index] : 0) }
            return difference == 0
        }

        /// 128 random bits as hex, from the system's secure generator.
        private static func randomSecret() -> String {
            var generator = SystemRandomNumberGenerator()
            return (0..<2).map { _ in
                let text = String(generator.next() as UInt64, radix: 16)
                return String(repeating: "0", count: 16 - text.count) + text
            }.joined()
        }
    }

    /// `--token`: every request must carry the token as `Authorization: Bearer TOKEN`, or the
    /// session cookie (HttpOnly, SameSite=Strict) that the first visit of the one-time login URL
    /// sets, after which the browser is sent on to the database page.
    struct TokenCheck<Context: RequestContext>: RouterMiddleware {
        let credentials: Credentials

        static var cookieName: String { "sqlq_session" }

        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            if request.uri.path == Credentials.loginPath {
                let code = (try? QueryString.decode(request.uri.query))?.last { $0.name == "code" }?.value ?? ""
                switch credentials.logIn(code: code) {
                case .session(let secret):
                    var headers = HTTPFields()
                    headers[.setCookie] = "\(Self.cookieName)=\(secret); HttpOnly; SameSite=Strict; Path=/"
                    headers[.location] = "/"
                    headers[.cacheControl] = "no-store"
                    return Response(status: .seeOther, headers: headers)
                case .used:
                    return Self.refusal(
                        "this one-time login URL was used already: it logs in one browser, once. "
                            + "Send Authorization: Bearer TOKEN (the --token), or restart sqlq serve for a new URL\n")
                case .wrongCode:
                    return Self.refusal("the code of this login URL is not this server's" + Self.advice)
                }
            }
            if let authorization = request.headers[.authorization] {
                guard authorization.hasPrefix("Bearer "),
                    Credentials.matches(String(authorization.dropFirst(7)), credentials.token)
                else {
                    return Self.refusal("the Authorization header does not hold this server's token" + Self.advice)
                }
                return try await next(request, context)
            }
            for header in request.headers[values: .cookie] {
                for pair in header.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, parts[0].trimmingPrefix(" ") == Self.cookieName,
                        credentials.isSession(String(parts[1]))
                    {
                        return try await next(request, context)
                    }
                }
            }
            return Self.refusal("this server needs its token" + Self.advice)
        }

        private static var advice: String {
            ": send Authorization: Bearer TOKEN (the --token), or open the one-time login URL that sqlq serve printed\n"
        }

        static func refusal(_ message: String) -> Response {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.wwwAuthenticate] = "Bearer"
            return Response(
                status: .unauthorized, headers: headers,
                body: ResponseBody(byteBuffer: ByteBufferAllocator().buffer(string: message)))
        }
    }

    /// Headers for every answer, and a body for every refusal: the Content-Security-Policy that forbids inline script and
    /// style and anything from elsewhere, and no guessing of content types.
    struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
        static var contentSecurityPolicy: String { "default-src 'self'; script-src 'self'; style-src 'self'" }

        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            var response: Response
            if request.method != .get && request.method != .head {
                response = plainText(.methodNotAllowed, "sqlq serve is read-only: it answers GET requests only\n")
                response.headers[.allow] = "GET, HEAD"
            } else {
                do {
                    response = try await next(request, context)
                } catch let error as any HTTPResponseError {
                    response = try error.response(from: request, context: context)
                    // Hummingbird's own refusals can come without a body; every answer says why.
                    if response.body.contentLength == 0 {
                        response = plainText(
                            response.status, "\(response.status.code) \(response.status.reasonPhrase)\n")
                    }
                }
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
