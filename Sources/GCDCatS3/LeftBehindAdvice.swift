import FoundationEssentials
import GCDCatSystem
import Synchronization

/// The lines that tell a user what gcdcat could not clean up on a server, and the awscli
/// command that removes it, ready to paste.
///
/// An upload that was never aborted keeps its parts' storage (and their cost) until someone
/// aborts it or a lifecycle rule does; only its upload ID names it, and the ID is not shown
/// anywhere else. So when an abort fails (a server that stopped answering), the ID is printed.
public enum LeftBehindAdvice {
    public static func upload(_ upload: MultipartUpload, _ error: any Error) -> String {
        let location = upload.location
        return "\(location): the multipart upload \(upload.uploadID) could not be aborted (\(reason(error))); "
            + "its parts keep their storage until it is: aws s3api abort-multipart-upload --bucket "
            + "\(shellQuoted(location.bucket)) --key \(shellQuoted(location.key)) --upload-id "
            + "\(shellQuoted(upload.uploadID))" + endpointNote
    }

    public static func object(_ location: ObjectLocation, _ error: any Error) -> String {
        "\(location): placed by this run, then not deleted when the run failed (\(reason(error))): "
            + "aws s3 rm \(shellQuoted(location.description))" + endpointNote
    }

    /// An object whose completion was sent and never answered before gcdcat stopped waiting
    /// for it: the server either published it or keeps its multipart upload unfinished.
    public static func unsettledCompletion(_ location: ObjectLocation) -> String {
        "\(location): its completion was sent and had no answer before the cleanup stopped waiting: the server "
            + "may have published it, or kept its upload unfinished; aws s3api head-object --bucket "
            + "\(shellQuoted(location.bucket)) --key \(shellQuoted(location.key)) tells whether it was published"
            + endpointNote
    }

    /// The `gcdcat uploads … --abort` command that aborts the uploads left on `locations`' keys:
    /// one per bucket, over the keys' longest common prefix (which may hold other uploads:
    /// the command lists each one it aborts). None when nothing was left.
    public static func abortCommands(for locations: [ObjectLocation], connection: [String]? = nil) -> [String] {
        let connection = connection ?? connectionArguments.withLock { $0 }
        let byBucket = Dictionary(grouping: locations, by: \.bucket)
        return byBucket.keys.sorted().map { bucket in
            let keys = byBucket[bucket, default: []].map(\.key)
            var prefix = Array(keys[0].unicodeScalars)
            for key in keys.dropFirst() {
                prefix = Array(zip(prefix, key.unicodeScalars).prefix { $0 == $1 }.map(\.0))
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: prefix)
            return "to abort the uploads above: gcdcat uploads \(shellQuoted("s3://\(bucket)/\(text)")) --abort"
                + connection.map { " " + $0 }.joined()
        }
    }

    /// The options the command was given that reach the server (`--endpoint-url`, `--ca-bundle`,
    /// `--no-verify-ssl`, `--request-payer`, `--expected-bucket-owner`), each already quoted,
    /// repeated in the `gcdcat uploads` command: without them it could not reach the uploads
    /// (a private CA's endpoint fails TLS). The environment's and the profile's settings reach
    /// that command by themselves.
    private static let connectionArguments = Mutex<[String]>([])

    /// Records them as given: `(option, value)`, a nil value for a flag.
    public static func useConnectionArguments(_ arguments: [(option: String, value: String?)]) {
        let words = connectionWords(arguments)
        connectionArguments.withLock { $0 = words }
    }

    /// `arguments` as the command line's words, each value quoted for the shell.
    public static func connectionWords(_ arguments: [(option: String, value: String?)]) -> [String] {
        arguments.map { option, value in value.map { "\(option) \(shellQuoted($0))" } ?? option }
    }

    /// awscli needs the endpoint too, unless it is AWS or `AWS_ENDPOINT_URL` names it.
    private static let endpointNote = " (and --endpoint-url, as for gcdcat, for a store other than AWS)"

    /// The failure without the location the line already starts with.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? GCDCatError else { return String(describing: error) }
        return [error.syscall, error.message].compactMap { $0 }.joined(separator: ": ")
    }

    /// `text` as one shell word: bare when it is plain, else in single quotes.
    package static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || $0.properties.numericType != nil
                        || "/._-~:".unicodeScalars.contains($0))
            }
        return plain ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
