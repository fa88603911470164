/// Encryption by S3's own keys: `x-amz-server-side-encryption` on the request that creates the
/// object (PutObject, CreateMultipartUpload); reads need nothing more.
public enum S3ServerSideEncryption: Sendable, Equatable {
    /// SSE-S3 (`AES256`).
    case aes256
    /// SSE-KMS (`aws:kms`), with the key's id or ARN, or the account's default key when nil.
    case kms(keyID: String?)

    var headers: [String: String] {
        switch self {
        case .aes256:
            return ["x-amz-server-side-encryption": "AES256"]
        case .kms(let keyID):
            var headers = ["x-amz-server-side-encryption": "aws:kms"]
            if let keyID { headers["x-amz-server-side-encryption-aws-kms-key-id"] = keyID }
            return headers
        }
    }
}
