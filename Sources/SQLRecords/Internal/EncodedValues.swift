import QueryBuilder
import SQLCore

extension PersistableRecord {
    /// The record's values in the order of its layout's columns.
    package func encodedValues() throws -> (layout: RecordLayout, values: [DatabaseValue]) {
        try encodedValues(RecordPlan.of(Self.self))
    }

    package func encodedValues(_ plan: RecordPlan) throws -> (layout: RecordLayout, values: [DatabaseValue]) {
        if let layout = plan.declared {
            var columns = ColumnEncoder(collecting: layout.columns, learning: false)
            try encode(to: &columns)
            try columns.finish(plan)
            return (layout, columns.collector!.values)
        }
        var columns = ColumnEncoder(collecting: plan.expectedColumns, learning: true)
        try encode(to: &columns)
        if let failure = columns.conversionFailure { throw failure }
        let collector = columns.collector!
        return (try plan.layout(learnedFrom: collector), collector.values)
    }
}
