extension Statement: RowSource {
    /// The statement's SQL, for the errors of the rows it reads.
    @usableFromInline package var rowSQL: String? { sql }

    /// The statement's decoder for the type, standing on `row`: it resolves each coding key to
    /// its column once per statement, and reads the columns straight from it.
    @usableFromInline package func decoder(for row: BorrowedRow, type: ObjectIdentifier) -> any Decoder {
        let decoder: RowDecoder
        if let last = lastDecoder, last.type == type {
            decoder = last
        } else {
            decoder = self.decoder(for: type)
        }
        decodedInRun = true
        decoder.moveTo(row)
        return decoder
    }

    /// The statement's decoder for the type, made on the type's first row.
    private func decoder(for type: ObjectIdentifier) -> RowDecoder {
        let decoder: RowDecoder
        if let existing = decoders.first(where: { $0.type == type }) {
            decoder = existing
        } else {
            decoder = RowDecoder(statement: self, type: type)
            decoders.append(decoder)
        }
        lastDecoder = decoder
        return decoder
    }

    /// Ends a run that decoded rows through `Decodable`: a decoder that user code kept past it
    /// (itself, or one of its keyed containers) is left to its keeper, and a new one serves the
    /// next run.
    @usableFromInline
    func endDecodingRun() {
        decodedInRun = false
        var index = 0
        while index < decoders.count {
            if isKnownUniquelyReferenced(&decoders[index]) && !decoders[index].hasKeptContainer {
                index += 1
                continue
            }
            let kept = decoders.remove(at: index)
            if lastDecoder === kept { lastDecoder = nil }
            kept.keep(statement: self)
        }
    }
}

extension BorrowedRow {
    /// The current row of `statement`.
    @inlinable
    init(statement: Statement) {
        self.init(
            source: statement, handle: statement.handle, generationPointer: statement.generationPointer,
            columnCount: statement.columnCount, generation: statement.generation)
    }
}
