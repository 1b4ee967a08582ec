#if HTTP
    /// Text as HTML shows it, whatever it holds: `&`, `<`, `>`, `"` and `'` as character
    /// references, so that a value is text in an element and in a quoted attribute alike; and
    /// control characters (which HTML forbids) as the Unicode symbol that pictures them, ␀ to ␟
    /// and ␡, so that they are seen rather than dropped.
    enum HTMLEscaper {
        static func escape(_ text: String) -> String {
            var escaped = ""
            escaped.reserveCapacity(text.utf8.count)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": escaped += "&amp;"
                case "<": escaped += "&lt;"
                case ">": escaped += "&gt;"
                case "\"": escaped += "&quot;"
                case "'": escaped += "&#39;"
                case "\n", "\t": escaped.unicodeScalars.append(scalar)
                case _ where scalar.value < 0x20:
                    escaped.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
                case "\u{7F}": escaped += "\u{2421}"
                case _ where (0x80...0x9F).contains(scalar.value): escaped += "\u{FFFD}"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }

        /// Text that is not all UTF-8, as stored: each run of UTF-8 escaped as above, each byte
        /// of a bad sequence as `<span class="byte">\xHH</span>`, the table format's notation,
        /// marked so that it is not taken for the four characters.
        static func escape(bytes: [UInt8]) -> String {
            var html = ""
            var run = ""
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = bytes.makeIterator()
            var offset = 0
            while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid(let encoded):
                    run.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                    offset += encoded.count
                case .error(let length):
                    html += escape(run)
                    run = ""
                    for byte in bytes[offset..<(offset + length)] {
                        html += "<span class=\"byte\">" + TextBytes.hexEscape(byte) + "</span>"
                    }
                    offset += length
                case .emptyInput:
                    return html + escape(run)
                }
            }
        }
    }
#endif
