/// Checks that bytes are UTF-8: import files, so that a Latin-1 or damaged file is refused
/// instead of having its bytes replaced with U+FFFD, and text read from SQLite before it is
/// written out byte for byte.
enum UTF8Validation {
    /// How a stretch of bytes checked out.
    enum Outcome: Equatable {
        /// Every sequence is well-formed.
        case valid
        /// The sequence at this offset is not well-formed.
        case invalid(Int)
        /// Well-formed up to this offset, where a sequence begins that the bytes end in the
        /// middle of: more bytes may complete it.
        case incomplete(Int)
    }

    /// Whether every byte belongs to a well-formed UTF-8 sequence.
    @inline(__always)
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        check(bytes) == .valid
    }

    /// The offset of the first byte that does not begin a well-formed UTF-8 sequence (The Unicode
    /// Standard, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), or nil.
    static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        switch bytes.withUnsafeBufferPointer(check) {
        case .valid: nil
        case .invalid(let offset), .incomplete(let offset): offset
        }
    }

    /// Checks `buffer`; a sequence cut off by its end is ``Outcome/incomplete(_:)``.
    static func check(_ buffer: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let base = buffer.baseAddress else { return .valid }
        let raw = UnsafeRawPointer(base)
        let count = buffer.count
        var index = 0
        while index < count {
            // Eight ASCII bytes at a time: most text is mostly ASCII.
            if index + 8 <= count,
                raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
                continue
            }
            let lead = buffer[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return .invalid(index)
            }
            for offset in 1..<length {
                guard index + offset < count else { return .incomplete(index) }
                let byte = buffer[index + offset]
                let (least, most) = offset == 1 ? (low, high) : (0x80, 0xBF)
                guard byte >= least, byte <= most else { return .invalid(index) }
            }
            index += length
        }
        return .valid
    }
}
