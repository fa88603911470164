import GCDCatSystem

/// How an S3 listing pages: the markers a truncated page names (`NextContinuationToken`,
/// `NextKeyMarker` …) and the query parameters that send them back for the next page. One
/// rule for every listing gcdcat reads, so that a page that leads nowhere new is refused the
/// same way by each.
package struct S3ListingPaging: Sendable {
    /// Each marker: the element of a truncated page that holds it, and the query parameter that
    /// carries it to the next request.
    package var markers: [(element: String, parameter: String)]

    /// ListObjectsV2.
    package static let objects = Self(markers: [("NextContinuationToken", "continuation-token")])
    /// ListObjectVersions.
    package static let versions = Self(markers: [
        ("NextKeyMarker", "key-marker"), ("NextVersionIdMarker", "version-id-marker"),
    ])
    /// ListMultipartUploads.
    package static let uploads = Self(markers: [
        ("NextKeyMarker", "key-marker"), ("NextUploadIdMarker", "upload-id-marker"),
    ])
    /// ListParts.
    package static let parts = Self(markers: [("NextPartNumberMarker", "part-number-marker")])

    package typealias Query = [(name: String, value: String)]

    /// The query items that ask for the page after `body`; nil when `body` was the last page.
    /// `asked` are the items that asked for `body` (none for the first page).
    ///
    /// ## Errors
    /// Why not, when `body` is truncated but its markers are missing, all empty, or the same as
    /// those that asked for it: followed, such a page would be asked for forever.
    package func next(after body: [UInt8], asked: Query) throws(Reason) -> Query? {
        guard S3XML.value("IsTruncated", in: body) == "true" else { return nil }
        var items: Query = []
        for marker in markers {
            guard let value = S3XML.value(marker.element, in: body) else { throw Reason(paging: self) }
            items.append((marker.parameter, value))
        }
        let empty = items.allSatisfy { $0.value.isEmpty }
        let repeated = items.elementsEqual(asked) { $0.name == $1.name && $0.value == $1.value }
        if empty || repeated { throw Reason(paging: self) }
        return items
    }

    /// Why a truncated page cannot be followed.
    package struct Reason: Error {
        package var text: String

        init(paging: S3ListingPaging) {
            let names = paging.markers.map(\.element)
            let listed = names.count == 1 ? names[0] : names.joined(separator: " and ")
            let verb = names.count == 1 ? "is" : "are"
            text = "whose \(listed) \(verb) missing, empty or the same as the last page's"
        }
    }
}

extension S3Client {
    /// Sends `request` once for each page of its listing, adding the markers of the page before
    /// (``S3ListingPaging``), and hands each 2xx answer to `page`. An answer whose status is in
    /// `allowing` ends the listing and is returned (ListParts of an upload that is gone).
    ///
    /// ## Errors
    /// Those of ``perform(_:allowing:)``; `page`'s; and `.io` naming the request's location and
    /// operation for a truncated page that leads nowhere new (`listing` names what was listed).
    @discardableResult
    package func forEachPage(
        of request: S3Request, paging: S3ListingPaging, allowing: Set<Int> = [], listing: String = "listing",
        _ page: (HTTPResponse, [UInt8]) throws -> Void
    ) throws -> HTTPResponse? {
        var asked: S3ListingPaging.Query = []
        while true {
            var pageRequest = request
            pageRequest.query += asked
            let response = try perform(pageRequest, allowing: allowing)
            if allowing.contains(response.status) { return response }
            let body = [UInt8](response.body)
            try page(response, body)
            do {
                guard let next = try paging.next(after: body, asked: asked) else { return nil }
                asked = next
            } catch {
                throw GCDCatError(
                    .io, path: request.location.description, syscall: request.operation,
                    message: "a truncated \(listing) \(error.text)")
            }
        }
    }
}
