#if HTTP
    import AsyncHTTPClient
    import ChildProcesses
    import Foundation
    import Glibc
    import Testing

    /// Headless Chromium driven through WebDriver's HTTP protocol (W3C), by Debian's
    /// `chromium-driver`: a real browser that runs the pages' script.
    final class WebDriver {
        static let chromium = "/usr/bin/chromium"
        static let driver = "/usr/bin/chromedriver"
        static var isInstalled: Bool {
            FileManager.default.isExecutableFile(atPath: chromium)
                && FileManager.default.isExecutableFile(atPath: driver)
        }

        /// WebDriver's key of an element reference in JSON.
        private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

        private let process: ChildProcess
        private let output: StreamReader
        /// The shared client, which needs no shutdown: a failed start leaves nothing to close.
        private let client = HTTPClient.shared
        private let base: String
        private var session = ""

        /// Starts the driver on a free port and opens a session of headless Chromium.
        init() async throws {
            let port = try Self.freePort()
            base = "http://127.0.0.1:\(port)"
            process = try ChildProcess(Self.driver, ["--port=\(port)"], output: .pipe)
            output = StreamReader(descriptor: process.output!)
            try await output.waitFor("started successfully")
            let options: [String: Any] = [
                "binary": Self.chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,900",
                ],
            ]
            let created = try await command(
                "POST", "/session",
                ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
            session = try #require((created as? [String: Any])?["sessionId"] as? String)
        }

        /// Ends the session and the driver.
        func quit() async throws {
            // Closing the session ends the browser; the driver, which outlives SIGTERM, is killed.
            _ = try? await command("DELETE", "/session/\(session)")
            process.signal(SIGKILL)
            try await process.termination(timeLimit: hangLimit)
        }

        func open(_ url: String) async throws {
            _ = try await command("POST", "/session/\(session)/url", ["url": url])
        }

        var url: String {
            get async throws { try #require(try await command("GET", "/session/\(session)/url") as? String) }
        }

        /// Whether `selector` (CSS) matches an element.
        func exists(_ selector: String) async throws -> Bool {
            try await executeAsync("arguments[1](document.querySelector(arguments[0]) !== null)", [selector]) as? Bool
                == true
        }

        func click(_ selector: String) async throws {
            try await onElement(selector) { element in
                _ = try await self.command("POST", "/session/\(self.session)/element/\(element)/click", [:])
            }
        }

        func type(_ text: String, into selector: String) async throws {
            try await onElement(selector) { element in
                _ = try await self.command("POST", "/session/\(self.session)/element/\(element)/clear", [:])
                _ = try await self.command(
                    "POST", "/session/\(self.session)/element/\(element)/value", ["text": text])
            }
        }

        /// The text of the first element `selector` matches, as the page shows it.
        func text(_ selector: String) async throws -> String {
            try await onElement(selector) { element in
                try #require(
                    try await self.command("GET", "/session/\(self.session)/element/\(element)/text") as? String)
            }
        }

        /// Finds the first element `selector` (CSS) matches and runs `body` on it. A live update
        /// may replace the element between the two commands, which the driver reports as a stale
        /// reference; the element is then found again, a few times at most.
        private func onElement<T>(_ selector: String, _ body: (String) async throws -> T) async throws -> T {
            var attempt = 1
            while true {
                let found = try await command(
                    "POST", "/session/\(session)/element", ["using": "css selector", "value": selector])
                let element = try #require(
                    (found as? [String: Any])?[Self.elementKey] as? String, "no element \(selector)")
                do {
                    return try await body(element)
                } catch let error as WebDriverError where error.error == "stale element reference" && attempt < 5 {
                    attempt += 1
                }
            }
        }

        /// Runs `script` in the page: it calls its last argument with the result.
        @discardableResult
        func executeAsync(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
            try await command("POST", "/session/\(session)/execute/async", ["script": script, "args": arguments])
        }

        /// Whether `condition`, a JavaScript expression, holds in the page within `milliseconds`,
        /// checked every 10 ms in the page itself.
        func waitUntil(_ condition: String, within milliseconds: Int = 10_000) async throws -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(milliseconds)
            while true {
                let left = max(0, Int((deadline - .now) / .milliseconds(1)))
                do {
                    let held = try await executeAsync(
                        """
                        const done = arguments[0];
                        const deadline = Date.now() + \(left);
                        (function check() {
                          let held = false;
                          try { held = Boolean(\(condition)); } catch (error) {}
                          if (held) return done(true);
                          if (Date.now() > deadline) return done(false);
                          setTimeout(check, 10);
                        })();
                        """)
                    return held as? Bool == true
                } catch let error as WebDriverError where error.error == "script timeout" && .now < deadline {
                    // Long before the session's script timeout (30 s): a navigation (a form just
                    // submitted, a link just clicked) unloaded the page the script waited in, which
                    // the driver reports so. The condition is checked again in the new page.
                }
            }
        }

        /// Whether the page shows an alert (which a script that ran would have opened).
        func hasAlert() async throws -> Bool {
            do {
                _ = try await command("GET", "/session/\(session)/alert/text")
                return true
            } catch let error as WebDriverError where error.error == "no such alert" {
                return false
            }
        }

        /// Sends a command and returns its `value`; a WebDriver error is thrown.
        @discardableResult
        private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
            var request = HTTPClientRequest(url: base + path)
            request.method = .init(rawValue: method)
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(try JSONSerialization.data(withJSONObject: body))
            }
            let response = try await client.execute(request, timeout: .seconds(60))
            let data = try await response.body.collect(upTo: 1 << 24)
            let json = try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any]
            let value = json?["value"]
            if let failure = value as? [String: Any], let error = failure["error"] as? String {
                // The command and its script say which step of a test failed.
                let script = (body?["script"] as? String).map { ", script " + $0.prefix(300) } ?? ""
                throw WebDriverError(
                    error: error, message: (failure["message"] as? String ?? "") + " (\(method) \(path)\(script))")
            }
            return value
        }

        private static func freePort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
                }
            }
            guard bound else { throw ServeTestError("no free port: \(String(cString: strerror(errno)))") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    struct WebDriverError: Error, CustomStringConvertible {
        var error: String
        var message: String
        var description: String { "WebDriver: \(error): \(message)" }
    }
#endif
