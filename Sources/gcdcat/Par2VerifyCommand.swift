import ArgumentParser
import GCDCatCore

extension GCDCat.Verify {
    /// `verify` over .par2 files: each set's files checked block by block against its IFSC
    /// packets, and whether its recovery blocks suffice.
    func runPar2() throws {
        let clock = ProcessClock()
        var sets: [Par2SetReport] = []
        var errors: [ErrorReport.Details] = []
        var exitStatus: Int32 = 0
        var repeated: [(list: String, verifiedAs: String)] = []
        try VerifyJob.par2(
            par2Sets, extras: par2Extras, jobs: jobs,
            checked: { list, verification in
                let report = Par2SetReport(par2: list, verification)
                sets.append(report)
                exitStatus = VerifyReport.worse(exitStatus, report.exitStatus)
                guard !status && !json else { return }
                var text = ""
                for (line, file) in zip(report.lines, report.files) where !quiet || file.status != .ok {
                    text += line + "\n"
                }
                try reportingFailures { try StandardStreams.writeOutput(PathName.bytes(of: text)) }
                for note in verification.notes where !quiet { writeToStandardError("gcdcat: note: \(note)\n") }
                for line in verification.set.damagedPacketNotes where !quiet {
                    writeToStandardError("gcdcat: \(line)\n")
                }
                if !quiet || report.exitStatus != 0 {
                    writeToStandardError("gcdcat: \(list.displayPath): \(report.verdict)\n")
                }
            },
            failed: { _, error in
                if !status { writeToStandardError("gcdcat: \(error)\n") }
                errors.append(ErrorReport(command: "verify", error: error).error)
                exitStatus = VerifyReport.worse(exitStatus, 1)
            },
            repeated: { repeated.append(($0, $1)) })
        let onceNotes = Self.verifiedOnceNotes(repeated)
        for note in onceNotes where !quiet && !status && !json { writeToStandardError("gcdcat: note: \(note)\n") }
        if json {
            let document = Par2VerifyDocument(
                inputs: lists, wallSeconds: roundedToMicroseconds(clock.elapsed().wall), sets: sets, errors: errors,
                notes: onceNotes.isEmpty ? nil : onceNotes, exitStatus: exitStatus)
            try reportingFailures { try StandardStreams.writeOutput(JSONDocument.encode(document)) }
        }
        if exitStatus != 0 { throw ExitCode(exitStatus) }
    }

    /// "a.vol0+1.par2 and 8 more are files of a.par2's set, verified once": one note per set
    /// that more than one of the files given belong to.
    static func verifiedOnceNotes(_ repeated: [(list: String, verifiedAs: String)]) -> [String] {
        var sets: [String] = []
        for (_, set) in repeated where !sets.contains(set) { sets.append(set) }
        return sets.map { set in
            let files = repeated.filter { $0.verifiedAs == set }.map(\.list)
            let named = files.count == 1 ? files[0].displayPath : "\(files[0].displayPath) and \(files.count - 1) more"
            return "\(named) \(files.count == 1 ? "is a file" : "are files") of \(set.displayPath)'s set, verified once"
        }
    }
}

extension GCDCat.Verify {
    /// The .par2 files given: the recovery sets to verify.
    var par2Sets: [String] { lists.filter(isPar2File) }
    /// The other files given after a .par2: where to look for the bytes of a set's damaged or
    /// missing files (renamed or swapped ones).
    var par2Extras: [String] { lists.filter { !isPar2File($0) } }

    /// .par2 files are verified by the PAR2 engine, alone: a mix with text lists, or options
    /// that only text lists have, is a usage error.
    func validatePar2Lists() throws {
        let par2 = lists.filter(isPar2File)
        guard !par2.isEmpty else { return }
        // After a .par2, other files are where to look for its files' bytes (as par2's `par2 v set.par2 extra…`).
        if isPar2File(lists[0]) {
            if let bad = par2Extras.first(where: { $0 == "-" || ObjectLocation.isObjectPath($0) }) {
                throw ValidationError(
                    "\(bad): the files after a .par2 are local files to look for the set's files' bytes in, not lists")
            }
        } else {
            guard par2.count == lists.count else {
                throw ValidationError(
                    "give .par2 files and checksum lists in separate runs (\(par2[0]) is a PAR2 file)")
            }
        }
        if algorithm != nil || unlisted != nil || ignoreMissing || followLinksOutside {
            throw ValidationError(
                "--algorithm, --unlisted, --ignore-missing and --follow-links-outside apply to checksum lists, not .par2"
            )
        }
    }
}
