import FoundationEssentials
import GCDCatSystem
import Synchronization

/// Where one bucket's requests go and the region they are signed for: the configuration's at
/// first, then what a redirect taught (kept for the rest of the run, so each bucket is
/// redirected at most once).
package struct BucketRoute: Sendable, Equatable {
    package var region: String
    /// The host a redirect named (`bkt.s3.eu-west-2.amazonaws.com`), or nil for the one the
    /// configuration and `region` make.
    package var host: String?
}

/// What an answer that sends the request elsewhere names: a 301 `PermanentRedirect`, a 307
/// `TemporaryRedirect`, or a 400 `AuthorizationHeaderMalformed` (signed for the wrong region).
/// HEAD answers carry no body, only the `x-amz-bucket-region` header.
package struct S3Redirect: Sendable, Equatable {
    package var status: Int
    package var code: String
    package var region: String?
    package var endpoint: String?

    /// nil when `response` is no redirect.
    package init?(_ response: HTTPResponse) {
        guard [301, 307, 400].contains(response.status) else { return nil }
        let body = [UInt8](response.body)
        let error = S3XML.error(in: body)
        code = error?.code ?? (response.status == 301 ? "PermanentRedirect" : S3Client.statusName(response.status))
        region = response.headers["x-amz-bucket-region"] ?? S3XML.value("Region", in: body)
        endpoint = S3XML.value("Endpoint", in: body) ?? response.headers["location"].flatMap(Self.authority)
        status = response.status
        if status == 400 && (region == nil || (error != nil && code != "AuthorizationHeaderMalformed")) { return nil }
    }

    /// `host[:port]` of an absolute URL.
    private static func authority(_ url: String) -> String? {
        guard let start = url.firstRange(of: "://")?.upperBound else { return nil }
        let rest = url[start...]
        let host = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex)]
        return host.isEmpty ? nil : String(host)
    }

    /// The route to try instead of `route`, or nil when this answer names nowhere new, or a
    /// host gcdcat will not send signed requests and data to: only AWS's own hosts for AWS,
    /// and the endpoint's host or its subdomains for a custom endpoint.
    package func next(after route: BucketRoute, configuration: S3Configuration) -> BucketRoute? {
        var next = BucketRoute(region: region ?? route.region, host: route.host)
        if let endpoint, status == 307 || region == nil {
            let host = endpoint.lowercased()
            let allowed =
                configuration.endpoint.map { host == $0.hostAndPort || host.hasSuffix(".\($0.hostAndPort)") }
                ?? host.hasSuffix(".amazonaws.com")
            guard allowed else { return nil }
            next.host = host
        }
        return next == route ? nil : next
    }

    /// Why the request was not followed further, naming the bucket and where the server sent it.
    package func refusal(
        _ request: S3Request, route: BucketRoute, followed: Bool, configuration: S3Configuration
    ) -> GCDCatError {
        var text = "\(code) (HTTP \(status)): the server sends bucket '\(request.location.bucket)' to "
        text += [endpoint.map { "endpoint \($0)" }, region.map { "region \($0)" }].compactMap { $0 }
            .joined(separator: ", ")
        if endpoint == nil && region == nil { text += "another endpoint it does not name" }
        if followed {
            text += ", after gcdcat had already followed one redirect (to region \(route.region)"
            text += route.host.map { ", endpoint \($0))" } ?? ")"
        } else if let endpoint, configuration.endpoint != nil || !endpoint.lowercased().hasSuffix(".amazonaws.com") {
            text += "; gcdcat sends requests only to \(configuration.endpoint?.description ?? "AWS")'s hosts: "
            text += "give --endpoint-url for \(endpoint)"
        }
        if let region, region != route.region { text += "; set AWS_REGION=\(region) or the profile's region" }
        return GCDCatError(.io, path: request.location.description, syscall: request.operation, message: text)
    }
}

/// The routes the server taught during the run, per bucket.
package final class BucketRoutes: Sendable {
    private let learned = Mutex<[String: BucketRoute]>([:])

    package init() {}

    package func route(_ bucket: String, default region: String) -> BucketRoute {
        learned.withLock { $0[bucket] } ?? BucketRoute(region: region, host: nil)
    }

    package func learn(_ route: BucketRoute, for bucket: String) { learned.withLock { $0[bucket] = route } }
}

extension S3Configuration {
    /// The scheme, host and path prefix for `bucket` on `route`.
    package func target(bucket: String, route: BucketRoute) -> (scheme: String, host: String, pathPrefix: String) {
        var shifted = self
        shifted.region = route.region
        let made = shifted.target(bucket: bucket)
        guard let host = route.host else { return made }
        let virtual = !bucket.isEmpty && host.hasPrefix(bucket.lowercased() + ".")
        return (made.scheme, host, virtual || bucket.isEmpty ? "" : "/\(S3URIEncoding.encode(bucket))")
    }
}
