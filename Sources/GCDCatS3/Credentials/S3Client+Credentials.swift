import GCDCatSystem

extension S3Client {
    /// The credentials to sign `request` with, refreshed first if they expire within minutes.
    ///
    /// ## Errors
    /// The credential source's, naming it, with the object as the path.
    func currentCredentials(_ request: S3Request) throws(GCDCatError) -> S3Credentials {
        do {
            return try configuration.credentialSource.current()
        } catch {
            var named = error
            named.path = named.path ?? request.location.description
            throw named
        }
    }
}
