import GCDCatSystem

/// How the TLS connection to an `https://` endpoint is checked.
public struct S3TLSSettings: Sendable, Equatable {
    /// A PEM file of the CA certificates to trust instead of the system's: `--ca-bundle`,
    /// `AWS_CA_BUNDLE` or the profile's `ca_bundle`, as awscli takes them.
    public var caBundle: String?
    /// Where ``caBundle`` was named (`--ca-bundle`, `AWS_CA_BUNDLE`, the profile's `ca_bundle`
    /// in its file), for the message of a certificate it does not trust.
    public var caBundleSource: String?
    /// False only for `--no-verify-ssl`: certificates are checked by default.
    public var verifiesPeer: Bool

    public init(caBundle: String? = nil, source: String? = nil, verifiesPeer: Bool = true) {
        self.caBundle = caBundle
        self.caBundleSource = source
        self.verifiesPeer = verifiesPeer
    }

    /// What a certificate was checked against, for the error of one not trusted: the bundle and
    /// where it was named, or the system's certificates, and how to name another.
    /// A certificate for another host name (libcurl's `detail` says so) is not a missing CA:
    /// the chain may be trusted, and only the name differs.
    public func untrustedHint(_ detail: String) -> String {
        guard detail.contains("subject name") && detail.contains("target host") else { return untrustedHint }
        return "the certificate was issued for other host names than the endpoint's (none of its subject and "
            + "alternative names matches): give the endpoint by a name the certificate holds, or have one issued "
            + "for this name"
    }

    public var untrustedHint: String {
        guard let caBundle else {
            return "checked against the system's CA certificates; for a private CA, name its certificate with "
                + "--ca-bundle FILE, AWS_CA_BUNDLE or the profile's ca_bundle"
        }
        return "checked against the CA bundle \(caBundle), from \(caBundleSource ?? "--ca-bundle"); it does not hold "
            + "the CA that signed the endpoint's certificate"
    }

    /// Refuses a bundle that cannot be read now, naming it and where it was named: libcurl
    /// would otherwise fail each request with words of its own, after retries.
    ///
    /// ## Errors
    /// ``S3ConfigurationRefusal`` naming `path`, the errno's words and `source`.
    public static func checkBundle(_ path: String, source: String) throws {
        do {
            let bytes = try readWholeFile(path)
            guard bytes.firstRange(of: Array("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
                throw GCDCatError(
                    .invalidInput, path: path, syscall: "read",
                    message: "has no PEM certificate (-----BEGIN CERTIFICATE-----); \(source) must name a CA bundle")
            }
        } catch var error as GCDCatError {
            if error.message.hasSuffix("must name a CA bundle") == false {
                error.message += " (the CA bundle \(source) names)"
            }
            throw S3ConfigurationRefusal(error)
        }
    }
}
