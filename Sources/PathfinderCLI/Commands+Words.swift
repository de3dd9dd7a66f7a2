import Arrival

extension Commands {
    static let words = Command(
        name: "words",
        summary: "what a heard sentence means: notHere, thisIsIt or none",
        help: """
            Usage: pathfinder words TEXT…

            Prints what the sentence means to the last stretch:
              notHere    a refusal ("여기 아니야", …)
              thisIsIt   a confirmation ("여기가 입구야", …)
              none       neither
            Spaces do not matter; a sentence with both is a refusal.
            """
    ) { arguments, console in
        var arguments = arguments
        let words = arguments.positionals()
        try arguments.finish()
        guard !words.isEmpty else { throw CLIError.usage("pathfinder words: expected TEXT") }
        console.line(ArrivalWords.meaning(of: words.joined(separator: " "))?.rawValue ?? "none")
        return 0
    }
}
