import GCDCatSystem

/// A failure after the command's output was published (a merge whose `--remove-parts` could
/// not delete a part): the output is complete and stays, and the message and the JSON error
/// object say so beside the error.
public struct FailureAfterPublishing: Error, Sendable {
    public var error: GCDCatError
    public var published: ErrorReport.Published

    public init(error: GCDCatError, published: ErrorReport.Published) {
        self.error = error
        self.published = published
    }
}
