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

    /// What to check when the server refuses the credentials: the keys the user typed, or the
    /// source that handed out temporary ones.
    var credentialHint: String {
        let source = configuration.credentialSource.source
        if source is StaticCredentialProvider {
            return "check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the profile's keys"
        }
        return "check the credentials from \(source.sourceName)"
    }
}
