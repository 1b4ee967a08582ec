extension QueryContext {
    /// Whether a `fetch()` made while another is running joins it (the default) instead of
    /// cancelling it and starting over. Either way every caller receives the same, latest result.
    public var queryDeduplicatesFetches: Bool {
        get { self[DeduplicationKey.self] }
        set { self[DeduplicationKey.self] = newValue }
    }

    private enum DeduplicationKey: Key {
        static let defaultValue = true
    }
}
