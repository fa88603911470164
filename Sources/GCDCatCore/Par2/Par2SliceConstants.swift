/// The constant each input slice is multiplied by: slice i gets 2^n_i, where n_i is the i-th
/// exponent (from 1) not divisible by 3, 5, 17 or 257, that is coprime to 65535, so that
/// 2^n_i generates the whole group (PAR2 2.0, "Reed-Solomon coding").
enum Par2SliceConstants {
    static func constants(count: Int) -> [UInt16] {
        precondition(count <= Par2RecoverySet.maximumSlices)
        var result: [UInt16] = []
        result.reserveCapacity(count)
        var exponent = 0
        while result.count < count {
            exponent += 1
            if exponent % 3 != 0 && exponent % 5 != 0 && exponent % 17 != 0 && exponent % 257 != 0 {
                result.append(GaloisField16.exp(exponent))
            }
        }
        return result
    }
}
