/// `count` and `noun`, in the plural unless `count` is 1: "1 file", "0 files", "2 blocks".
/// Every printed count goes through it, so none reads "1 files".
public func counted(_ count: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
}
