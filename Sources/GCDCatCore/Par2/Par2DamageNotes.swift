import GCDCatSystem

/// What to tell the user about the .par2 files of a set that were not wholly usable: each file
/// with damaged packets, named with their offsets, and each file under a volume's name that is
/// not a PAR2 file at all.
extension Par2RecoverySet {
    /// One line per .par2 file holding damaged packets (`PATH: …`, without the `gcdcat: `): a
    /// recovery block's packet is lost with its block (the verdict's count leaves it out); any
    /// other packet is a copy of the set's description, which PAR2 repeats in every file.
    public var damagedPacketNotes: [String] {
        var paths: [String] = []
        for site in damagedPacketSites where !paths.contains(site.path) { paths.append(site.path) }
        return paths.map { path in
            let sites = damagedPacketSites.filter { $0.path == path }
            let recovery = sites.filter { $0.type == .recoverySlice }.map(\.offset)
            let other = sites.filter { $0.type != .recoverySlice }.map(\.offset)
            var clauses: [String] = []
            if !recovery.isEmpty {
                clauses.append(
                    "\(recovery.count == 1 ? "a recovery block's" : "\(recovery.count) recovery blocks'") at "
                        + "\(Self.offsets(recovery)) (lost, not counted among the recovery blocks present)")
            }
            if !other.isEmpty {
                clauses.append(
                    "\(recovery.isEmpty ? "" : "others ")at \(Self.offsets(other)) (PAR2 repeats the set's "
                        + "description in every .par2 file: the intact copies were used)")
            }
            return "\(path.displayPath): \(counted(sites.count, "damaged packet")) skipped, "
                + clauses.joined(separator: "; ")
        }
    }

    /// One line per file named as a volume of the set that holds no PAR2 packet.
    public var notPar2Notes: [String] {
        notPar2Files.map {
            $0 == origin
                ? "\($0.displayPath) is not a PAR2 file (no PAR2 packet in it); the set was read from the volumes "
                    + "beside it"
                : "\($0.displayPath) is named as a recovery volume of \(origin.displayPath)'s set but is not a PAR2 "
                    + "file (no PAR2 packet in it); ignored"
        }
    }

    /// `offset 128`, `offsets 0, 900 and 4 more`.
    private static func offsets(_ values: [Int64]) -> String {
        let shown = values.prefix(5).map(String.init).joined(separator: ", ")
        let more = values.count > 5 ? " and \(values.count - 5) more" : ""
        return "\(values.count == 1 ? "offset" : "offsets") \(shown)\(more)"
    }
}

extension Par2Verification {
    /// Everything a reader of the verdict should be told beside it, without the `gcdcat: note: `:
    /// volumes of other sets and files that are no PAR2 file (both ignored), and what the search
    /// for files under other names has to say. The damaged packets' lines are
    /// ``Par2RecoverySet/damagedPacketNotes``.
    public var notes: [String] { self.set.foreignVolumeNotes + self.set.notPar2Notes + searchNotes }
}
