#if HTTP
    import SQLite

    /// Filter-language text that `serve` writes into links: a facet value adds `column = value`
    /// to the view's filter, and a foreign key whose parent is not found by rowid links to the
    /// parent table filtered on its key.
    enum FilterSnippet {
        /// `"column" = value` (or `"column" is null`), with each dotted step of `column` quoted;
        /// nil for a value the filter language cannot write (a blob, an infinity).
        ///
        /// Text in a column that `holdsNumbers` (declared `INTEGER` or `REAL`, where SQLite keeps
        /// what it cannot read as a number as text) is `"column" glob 'text'`, its wildcards
        /// escaped: `=` would take the text for a type mismatch, or bind it as a number. No number
        /// reads as such text, since SQLite would have stored the text as that number.
        static func equals(_ column: String, _ value: DatabaseValue, holdsNumbers: Bool = false) -> String? {
            let name = column.split(separator: ".", omittingEmptySubsequences: false).map { step in
                String.quotedIdentifier(String(step))
            }.joined(separator: ".")
            switch value {
            case .null: return name + " is null"
            case .integer(let integer): return name + " = " + String(integer)
            case .real(let real): return real.isFinite ? name + " = " + String(real) : nil
            case .text(let text) where holdsNumbers: return name + " glob " + literal(globPattern(text))
            case .text(let text): return name + " = " + literal(text)
            case .blob: return nil
            }
        }

        /// A GLOB pattern that matches `text` only: `*`, `?` and `[` each in brackets.
        static func globPattern(_ text: String) -> String {
            var pattern = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "*", "?", "[": pattern += "[" + String(scalar) + "]"
                default: pattern.unicodeScalars.append(scalar)
                }
            }
            return pattern
        }

        /// A 'string' that reads back as `text`.
        static func literal(_ text: String) -> String {
            var quoted = "'"
            for scalar in text.unicodeScalars {
                switch scalar {
                case "'": quoted += "''"
                case "\\": quoted += "\\\\"
                case "\n": quoted += "\\n"
                case "\t": quoted += "\\t"
                case "\r": quoted += "\\r"
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "'"
        }

        /// `filters` with `condition` added: each existing filter stays one, ANDed with it.
        static func adding(_ condition: String, to filters: [String]) -> [String] {
            filters + [condition]
        }
    }
#endif
