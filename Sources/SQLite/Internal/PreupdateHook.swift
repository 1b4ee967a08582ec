import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SQLite's pre-update hook, found at run time: it exists only in builds with
/// `SQLITE_ENABLE_PREUPDATE_HOOK`, and the header declares it only then.
enum PreupdateHook {
    typealias Callback =
        @convention(c) (
            UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int64, Int64
        ) -> Void
    typealias Install = @convention(c) (OpaquePointer?, Callback?, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    typealias Value = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias Count = @convention(c) (OpaquePointer?) -> Int32

    struct Functions: @unchecked Sendable {
        // Plain C function pointers, set once and never changed: safe to share.
        let install: Install
        let old: Value
        let new: Value
        let count: Count
    }

    /// The hook's functions, or nil when this SQLite was built without it.
    static let functions: Functions? = {
        guard sqlite3_compileoption_used("ENABLE_PREUPDATE_HOOK") != 0 else { return nil }
        let handle = dlopen(nil, RTLD_NOW)
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let pointer = dlsym(handle, name) else { return nil }
            return unsafeBitCast(pointer, to: type)
        }
        guard let install = symbol("sqlite3_preupdate_hook", as: Install.self),
            let old = symbol("sqlite3_preupdate_old", as: Value.self),
            let new = symbol("sqlite3_preupdate_new", as: Value.self),
            let count = symbol("sqlite3_preupdate_count", as: Count.self)
        else { return nil }
        return Functions(install: install, old: old, new: new, count: count)
    }()

    /// True when SQLite was built with `SQLITE_<name>`.
    static func compileOptionUsed(_ name: String) -> Bool {
        sqlite3_compileoption_used(name) != 0
    }

    /// Reads one value the hook reports, or nil when a `DatabaseValue` cannot hold it exactly:
    /// text that is not valid in the database's `encoding` (a `CAST` of bytes can store it)
    /// would compare as other bytes than SQLite's.
    static func read(_ value: OpaquePointer?, encoding: RowFilter.TextEncoding) -> DatabaseValue? {
        guard let value else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            switch encoding {
            case .utf8:
                guard let text = sqlite3_value_text(value) else { return .text("") }
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
                return String(validating: bytes, as: UTF8.self).map(DatabaseValue.text)
            case .utf16le, .utf16be:
                // The stored bytes: the conversion to UTF-8 that `sqlite3_value_text` makes joins
                // an unpaired surrogate with the unit after it, as if they were a pair. On text
                // stored in UTF-16, `sqlite3_value_bytes16` counts them without converting.
                let count = Int(sqlite3_value_bytes16(value))
                guard count > 0, let raw = sqlite3_value_blob(value) else { return .text("") }
                guard count % 2 == 0 else { return nil }
                let bytes = UnsafeRawBufferPointer(start: raw, count: count)
                let isLittleEndian = encoding == .utf16le
                let units = stride(from: 0, to: count, by: 2).lazy.map { offset -> UInt16 in
                    let first = UInt16(bytes[offset])
                    let second = UInt16(bytes[offset + 1])
                    return isLittleEndian ? first | second << 8 : first << 8 | second
                }
                return String(validating: units, as: UTF16.self).map(DatabaseValue.text)
            }
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}
