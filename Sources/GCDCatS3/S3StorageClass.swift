/// An S3 storage class, as `x-amz-storage-class` names it (AWS's list; a gateway may accept
/// fewer: Ceph RGW knows STANDARD and the classes its zone's placement defines).
public enum S3StorageClass: String, Sendable, CaseIterable {
    case standard = "STANDARD"
    case reducedRedundancy = "REDUCED_REDUNDANCY"
    case standardIA = "STANDARD_IA"
    case oneZoneIA = "ONEZONE_IA"
    case intelligentTiering = "INTELLIGENT_TIERING"
    case glacier = "GLACIER"
    case deepArchive = "DEEP_ARCHIVE"
    case outposts = "OUTPOSTS"
    case glacierIR = "GLACIER_IR"
    case snow = "SNOW"
    case expressOneZone = "EXPRESS_ONEZONE"
    case fsxOpenZFS = "FSX_OPENZFS"
    case fsxONTAP = "FSX_ONTAP"

    /// Every name, comma-separated, for the message that refuses an unknown one.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
