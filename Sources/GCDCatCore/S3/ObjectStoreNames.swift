import GCDCatS3

/// Names in a bucket as the store answers for each when asked: a HEAD for one name, a listing
/// for a folder. For the few names a list's rules look up (the parts a checksum list object
/// names), where listing the whole folder first would cost more than it saves.
struct ObjectStoreNames: SetNames {
    let store: any ObjectStore

    func exists(_ path: String) -> Bool {
        guard let location = try? ObjectLocation(parsing: path) else { return false }
        return (try? store.head(location)) != nil
    }

    func entries(inFolder folder: String) throws -> [String] {
        guard let location = try ObjectLocation(parsing: folder + "/_") else { return [] }
        let prefix = String(location.key.dropLast())
        return try store.list(bucket: location.bucket, prefix: prefix).map {
            String($0.location.key.dropFirst(prefix.count))
        }
        .filter { !$0.contains("/") }
    }
}
