import Glibc
import Queryable
import Testing

@Suite(.timeLimit(.minutes(1)))
struct FileDescriptorStreamTests {
    @Test func readsLinesEndOfTextAndEndOfInput() async throws {
        let pipe = TestPipe()
        let reader = FileDescriptorLineReader(fileDescriptor: pipe.readEnd)
        #expect(!reader.isTerminal)
        pipe.write("first\r\nsecond\nhalf\u{03}after\nlast")
        pipe.closeWriteEnd()
        #expect(try await reader.readLine() == .line("first"))
        #expect(try await reader.readLine() == .line("second"))
        #expect(try await reader.readLine() == .interrupted)
        #expect(try await reader.readLine() == .line("after"))
        #expect(try await reader.readLine() == .line("last"))
        #expect(try await reader.readLine() == .endOfInput)
        #expect(try await reader.readLine() == .endOfInput)
    }

    @Test func lineArrivingLaterIsAwaited() async throws {
        let pipe = TestPipe()
        let reader = FileDescriptorLineReader(fileDescriptor: pipe.readEnd)
        async let line = reader.readLine()
        pipe.write("par")
        pipe.write("tial\n")
        #expect(try await line == .line("partial"))
    }

    @Test func cancellingAWaitingReadStopsIt() async throws {
        let pipe = TestPipe()
        let reader = FileDescriptorLineReader(fileDescriptor: pipe.readEnd)
        let read = Task { try await reader.readLine() }
        read.cancel()
        await #expect(throws: CancellationError.self) { try await read.value }
        // Nothing was lost: the reader still works for the next line.
        pipe.write("still here\n")
        #expect(try await reader.readLine() == .line("still here"))
    }

    @Test func presenterRefusesWhenTheInputIsAPipe() async throws {
        let pipe = TestPipe()
        pipe.write("y\n")
        let output = TestPipe()
        let presenter = TerminalPresenter(
            input: FileDescriptorLineReader(fileDescriptor: pipe.readEnd),
            output: FileDescriptorWriter(fileDescriptor: output.writeEnd)
        )
        await #expect(throws: TerminalPresenterError.inputIsNotATerminal(prompt: "Deploy?")) {
            try await presenter.ask(.confirmation("Deploy?"))
        }
        #expect(try await presenter.ask(.confirmation("Deploy?", default: false)) == false)
    }

    @Test func writerWritesEverything() async throws {
        let pipe = TestPipe()
        let text = String(repeating: "prompt ", count: 1000)
        try FileDescriptorWriter(fileDescriptor: pipe.writeEnd).write(text)
        pipe.closeWriteEnd()
        let reader = FileDescriptorLineReader(fileDescriptor: pipe.readEnd)
        #expect(try await reader.readLine() == .line(text))
    }

    @Test func writerReportsFailuresAsTypedErrors() {
        let pipe = TestPipe()
        let writer = FileDescriptorWriter(fileDescriptor: pipe.readEnd)
        #expect(throws: TerminalPresenterError.writeFailed(errno: EBADF)) { try writer.write("x") }
        #expect(TerminalPresenterError.writeFailed(errno: EBADF).description.contains("errno \(EBADF)"))
    }
}
