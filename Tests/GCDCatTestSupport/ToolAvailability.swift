#if canImport(Glibc)
    import Glibc
#endif

/// Whether `tool` is an executable on the PATH: what a test that compares against another
/// program gives `.enabled(if:)`, so that it says it did not run rather than pass.
public func toolExists(_ tool: String) -> Bool {
    guard let path = getenv("PATH").map({ String(cString: $0) }) else { return false }
    return path.split(separator: ":").contains { access("\($0)/\(tool)", X_OK) == 0 }
}
