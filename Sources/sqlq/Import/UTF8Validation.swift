/// Checks that an import file is UTF-8 before any of it is read, so that a Latin-1 or damaged
/// file is refused instead of having its bytes replaced with U+FFFD.
enum UTF8Validation {
    /// The offset of the first byte that does not begin a well-formed UTF-8 sequence (The Unicode
    /// Standard, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), or nil.
    static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            let raw = UnsafeRawBufferPointer(buffer)
            let count = buffer.count
            var index = 0
            while index < count {
                // Eight ASCII bytes at a time: most files are mostly ASCII.
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
                default: return index
                }
                guard index + length <= count, buffer[index + 1] >= low, buffer[index + 1] <= high else { return index }
                for offset in 2..<length where buffer[index + offset] & 0xC0 != 0x80 { return index }
                index += length
            }
            return nil
        }
    }
}
