// A libFuzzer target for the parsers that read untrusted text: SFV manifests and size flags.
// Built by scripts/fuzz.sh together with GCDCatCore's sources (swiftc -sanitize=fuzzer).
// Any crash, hang or sanitizer report is a bug; thrown errors are the expected outcome.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let manifest = try? Manifest.parse(text, path: "fuzz.sfv") {
        for entry in manifest.entries where entry.name.hasPrefix("/") {
            precondition(entry.rejection != nil, "an absolute name was not rejected")
        }
        _ = manifest.render(generator: "fuzz")
    }
    if let parsed = try? ByteSize(parsing: text) {
        precondition(parsed.bytes >= 0, "a size parsed negative")
    }
    return 0
}
