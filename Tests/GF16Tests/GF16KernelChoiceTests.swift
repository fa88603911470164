import CGF16
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// GCDCAT_GF16_KERNEL: gf16_kernel_choose is what the first-use selection runs on its value.
@Suite struct GF16KernelChoiceTests {
    func choose(_ request: String?) -> (kernel: String, message: String) {
        var message = [CChar](repeating: 0, count: 256)
        let kernel = message.withUnsafeMutableBufferPointer { buffer in
            if let request {
                gf16_kernel_choose(request, buffer.baseAddress, buffer.count)
            } else {
                gf16_kernel_choose(nil, buffer.baseAddress, buffer.count)
            }
        }
        return (kernelName(kernel), message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    var best: String {
        kernelName(
            [GF16_KERNEL_GFNI512, GF16_KERNEL_GFNI, GF16_KERNEL_AVX2].first(where: cpuRuns) ?? GF16_KERNEL_SCALAR)
    }

    @Test func unsetEmptyAndAutoPickTheFastestKernelQuietly() {
        for request in [nil, "", "auto"] { #expect(choose(request) == (best, ""), "\(request ?? "unset")") }
    }

    @Test(arguments: allKernels)
    func namingAKernelForcesItOrSaysWhatIsMissing(kernel: gf16_kernel) {
        let name = kernelName(kernel)
        let missing = [
            GF16_KERNEL_AVX2: "AVX2", GF16_KERNEL_AVX512: "AVX-512BW", GF16_KERNEL_GFNI: "GFNI",
            GF16_KERNEL_GFNI512: "GFNI and AVX-512BW/VL",
        ][kernel]
        if cpuRuns(kernel) {
            #expect(choose(name) == (name, ""))
        } else {
            #expect(
                choose(name) == (best, "GCDCAT_GF16_KERNEL=\(name): this CPU lacks \(missing ?? "?"); using \(best)"))
        }
    }

    @Test func anUnknownNameListsTheKernelsAndFallsBack() {
        let message = "GCDCAT_GF16_KERNEL=sse3: unknown kernel (scalar, avx2, avx512, gfni, gfni512 or auto)"
        #expect(choose("sse3") == (best, "\(message); using \(best)"))
        #expect(choose("AVX2").kernel == best, "names are case-sensitive, as the README lists them")
    }

    @Test func theRunningKernelIsWhatTheEnvironmentChose() {
        let request = getenv("GCDCAT_GF16_KERNEL").map { String(cString: $0) }
        #expect(String(cString: gf16_kernel_name()) == choose(request).kernel)
        #expect(gf16_kernel_supported(GF16_KERNEL_SCALAR) == 1 && gf16_kernel_supported(GF16_KERNEL_COUNT) == 0)
        #expect(gf16_kernel_name_of(GF16_KERNEL_COUNT) == nil)
    }
}
