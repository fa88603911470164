// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "gcdcat",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gcdcat", targets: ["gcdcat"]),
        .library(name: "GCDCatCore", targets: ["GCDCatCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2")
    ],
    targets: [
        // zlib from Debian's zlib1g-dev, linked as a system library.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The fast checksum kernels (see ChecksumBackend): ISA-L for crc32, libdeflate for
        // adler32. zlib stays for the *_combine arithmetic and as the tests' oracle.
        .systemLibrary(name: "CIsal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CDeflate", providers: [.apt(["libdeflate-dev"])]),
        // md5/sha digests: OpenSSL's libcrypto (see Digester for why not swift-crypto).
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        // The S3 client's HTTP: libcurl's easy interface (see CurlTransport for why not URLSession).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Swift's Glibc module is built without _GNU_SOURCE, so copy_file_range,
        // fallocate and friends are reached through this shim.
        .target(name: "CSystemShim"),
        // GF(2^16) multiply-add kernels for PAR2 recovery volumes (scalar, AVX2, AVX-512BW, GFNI),
        // picked by CPUID at first use; plain C, no dependencies. Optimised in debug builds too:
        // at -O0 the intrinsics run 45x slower, and the PAR2 tests run in debug.
        .target(name: "CGF16", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        // GF-Complete (libgf-complete-dev): the oracle of CGF16's tests only, so building the
        // product does not need it.
        .systemLibrary(name: "CGFComplete", providers: [.apt(["libgf-complete-dev"])]),
        // BLAKE2b of any length (b2sum -l N), which OpenSSL 3.0's libcrypto cannot compute.
        .target(name: "CBlake2"),
        // MD5 for PAR2's packet, file and block hashes: a fixed-size state, so starting one
        // cannot fail (an OpenSSL context is allocated). Optimised in debug builds, as CGF16.
        .target(name: "CMD5", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        // Linked into the executable only: a constructor that installs the signal handlers
        // before Swift's main (the library and the tests keep their own signal handling).
        .target(name: "GCDCatStartup", dependencies: ["CSystemShim"]),
        // Errors, syscalls and path names: what every layer above speaks.
        .target(name: "GCDCatSystem", dependencies: ["CSystemShim"]),
        // The S3 client (SigV4, credentials, transport, XML, retries): it knows objects and
        // requests, nothing of sets, merges or splits. See ARCHITECTURE.md.
        .target(name: "GCDCatS3", dependencies: ["GCDCatSystem", "COpenSSL", "CCurl", "CIsal"]),
        .target(
            name: "GCDCatCore",
            dependencies: [
                "GCDCatSystem", "GCDCatS3", "CZlib", "CIsal", "CDeflate", "COpenSSL", "CSystemShim", "CBlake2", "CGF16",
                "CMD5",
            ]
        ),
        .executableTarget(
            name: "gcdcat",
            dependencies: [
                "GCDCatCore", "GCDCatStartup",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the test targets share: seeded data, and whether a reference tool is installed.
        .target(name: "GCDCatTestSupport", dependencies: ["GCDCatSystem"], path: "Tests/GCDCatTestSupport"),
        .testTarget(name: "GCDCatCoreTests", dependencies: ["GCDCatCore", "CZlib", "CMD5", "GCDCatTestSupport"]),
        .testTarget(name: "GCDCatCLITests", dependencies: ["GCDCatCore", "GCDCatTestSupport"]),
        .testTarget(name: "GF16Tests", dependencies: ["CGF16", "CGFComplete", "GCDCatTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
